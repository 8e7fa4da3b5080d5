"""Layer 2: entities and relations with their decay parameters (docs/decay.md, docs/retain.md).

Strength and weight are always evaluated at `now` from the stored parameters
(`memory.decay.sql`). The stored values are for bulk work and listing:

- `Entity.strength` is the strength at `strength_evaluated_at`, written by every
  write that changes a decay parameter (the Retain Job stores it with headroom and
  leaves it while it still bounds: `retain.strength_bound_recalls`), and refreshed
  by the sleep cycle when it has become loose. Strength only falls between two
  writes, so it bounds the strength at any later time:
  `selectors.entities.entity_strongest` relies on it
  (with an index). A writer that changes a decay parameter must store the new
  value (`services.entities.entity_strength_store`) or NULL.
- `Entity.strength_consolidated` / `Relation.weight` are the values at the last
  sleep cycle, against which the next one records threshold crossings.
"""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models

from memory import clock
from memory.limits import ENTITY_KEY_CHARS
from memory.models.taxonomy import MemoryType, Namespace, Referent, Valence


class Route(models.TextChoices):
    DARK_MATTER = "dark_matter", "dark matter"
    NORMAL = "normal", "normal"
    FAST_LANE = "fast_lane", "fast lane"


class EntityStatus(models.TextChoices):
    ACTIVE = "active"
    QUARANTINED = "quarantined"
    MERGED = "merged"


class Entity(models.Model):
    namespace = models.ForeignKey(
        Namespace, on_delete=models.PROTECT, related_name="entities", db_index=False
    )
    slug = models.CharField(max_length=200)
    key = models.CharField(max_length=ENTITY_KEY_CHARS, help_text="namespace:slug")
    display_name = models.CharField(max_length=300, blank=True)
    aliases = ArrayField(models.CharField(max_length=300), default=list, blank=True)
    memory_type = models.CharField(max_length=12, choices=MemoryType.choices)
    referent = models.CharField(max_length=12, choices=Referent.choices)

    base = models.FloatField()
    half_life_days = models.FloatField()
    valence = models.CharField(max_length=10, choices=Valence.choices, default=Valence.NEUTRAL)
    pos = models.PositiveIntegerField(default=0)
    neg = models.PositiveIntegerField(default=0)
    retrieval_count = models.PositiveIntegerField(default=0)
    last_reinforced_at = models.DateTimeField(default=clock.now)
    pinned = models.BooleanField(default=False)
    route = models.CharField(max_length=12, choices=Route.choices, default=Route.NORMAL)

    status = models.CharField(
        max_length=12, choices=EntityStatus.choices, default=EntityStatus.ACTIVE
    )
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="merged_from",
        db_index=False,
    )

    strength = models.FloatField(null=True, blank=True)
    strength_evaluated_at = models.DateTimeField(null=True, blank=True)
    strength_consolidated = models.FloatField(null=True, blank=True)

    created_at = models.DateTimeField(default=clock.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "entities"
        indexes = [
            models.Index(fields=["namespace", "strength"], name="entity_ns_strength"),
            models.Index(
                fields=["merged_into"], name="entity_merged_into",
                condition=models.Q(merged_into__isnull=False),
            ),
        ]
        constraints = [
            # A constraint rather than unique=True: no extra LIKE index to maintain.
            models.UniqueConstraint(fields=["key"], name="entity_key_unique"),
            models.CheckConstraint(
                condition=models.Q(base__gte=0) & models.Q(base__lte=1), name="entity_base_unit"
            ),
            models.CheckConstraint(
                condition=models.Q(half_life_days__gt=0), name="entity_half_life_positive"
            ),
        ]

    def __str__(self) -> str:
        return self.key


class Relation(models.Model):
    source = models.ForeignKey(
        Entity, on_delete=models.PROTECT, related_name="relations_out", db_index=False
    )
    target = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="relations_in")
    relation_type = models.CharField(max_length=64)
    relation_class = models.CharField(max_length=32)
    last_reinforced_at = models.DateTimeField(default=clock.now)
    evidence_count = models.PositiveIntegerField(default=1)
    weight = models.FloatField(null=True, blank=True)
    weight_evaluated_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=clock.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["source", "target", "relation_type"], name="relation_unique_edge"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source_id} -{self.relation_type}-> {self.target_id}"
