"""The namespace tree (docs/taxonomy.md), synced from `config/decay.yaml`."""

from __future__ import annotations

from django.db import models
from mptt.models import MPTTModel, TreeForeignKey


class MemoryType(models.TextChoices):
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"


class Referent(models.TextChoices):
    SELF = "self"
    AGENT = "agent"
    OTHER = "other"
    OBJECT = "object"
    ABSTRACT = "abstract"


class Valence(models.TextChoices):
    NEUTRAL = "neutral"
    POSITIVE = "positive"
    NEGATIVE = "negative"
    CRITICAL = "critical"


class Namespace(MPTTModel):  # type: ignore[misc]  # django-mptt is untyped
    """A concrete node such as `agent:claude-code:rc`: one grid cell and its defaults.

    `pattern` is the taxonomy entry it was made from (`agent:*:rc`). Nodes are
    never deleted: one the config no longer describes is kept with
    `in_config=False`, so no entity is ever orphaned.
    """

    path = models.CharField(max_length=255, unique=True)
    name = models.CharField(max_length=64)
    parent = TreeForeignKey(
        "self", null=True, blank=True, related_name="children", on_delete=models.PROTECT
    )
    pattern = models.CharField(max_length=255, blank=True)
    memory_type = models.CharField(max_length=12, choices=MemoryType.choices)
    referent = models.CharField(max_length=12, choices=Referent.choices)
    half_life_days = models.FloatField()
    base_strength = models.FloatField()
    valence = models.CharField(max_length=10, choices=Valence.choices)
    pinned = models.BooleanField(default=False)
    description = models.TextField(blank=True)
    in_config = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class MPTTMeta:
        order_insertion_by = ["name"]

    class Meta:
        verbose_name = "namespace"

    def __str__(self) -> str:
        return self.path
