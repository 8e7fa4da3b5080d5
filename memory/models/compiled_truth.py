"""Layer 3: one compiled-truth document per entity, versioned (docs/compiled-truth.md).

Each regeneration is a new row; the version it replaces points to it through
`superseded_by`. The current version of an entity is its row with no successor: a partial
unique index (`compiled_truth_one_current`) holds one per entity and finds it in one index
probe, without a pointer column on `Entity` (whose rows the Retain Job and the sleep cycle
rewrite all the time, and which would then have to be rewritten once more per version).
"""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models

from memory import clock
from memory.models.graph import Entity


class CompiledTrigger(models.TextChoices):
    SLEEP_CYCLE = "sleep_cycle", "sleep cycle"
    REBUILD = "rebuild", "rebuild (command)"
    API = "api", "rebuild (API)"


class CompiledTruth(models.Model):
    """What Cortex held true about an entity when this version was compiled.

    `facts_*`, `relations_*` and `memories_*` describe what the document saw (how many, and
    a digest of their identities and states): the next regeneration compares them, and the
    strength, with the entity as it is then."""

    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="compiled_truths",
                               db_index=False)
    version = models.PositiveIntegerField()
    markdown = models.TextField()
    as_of = models.DateTimeField(help_text="The `now` it was compiled at.")
    strength = models.FloatField(null=True, blank=True,
                                 help_text="Strength at `as_of`; empty when pinned.")
    pinned = models.BooleanField(default=False)
    facts_count = models.PositiveIntegerField(default=0)
    facts_digest = models.CharField(max_length=32, blank=True, default="")
    relations_count = models.PositiveIntegerField(default=0)
    relations_digest = models.CharField(max_length=32, blank=True, default="")
    memories_count = models.PositiveIntegerField(default=0)
    memories_digest = models.CharField(max_length=32, blank=True, default="")
    reasons = ArrayField(models.CharField(max_length=32), default=list, blank=True,
                         help_text="Why it was compiled: first, strength, facts, ...")
    trigger = models.CharField(max_length=16, choices=CompiledTrigger.choices)
    created_at = models.DateTimeField(default=clock.now)
    superseded_by = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="supersedes",
        help_text="The next version; empty on the current one.")

    class Meta:
        verbose_name = "compiled truth version"
        constraints = [
            models.UniqueConstraint(fields=["entity", "version"],
                                    name="compiled_truth_version_unique"),
            models.UniqueConstraint(fields=["entity"], condition=models.Q(superseded_by=None),
                                    name="compiled_truth_one_current"),
        ]

    def __str__(self) -> str:
        return f"compiled truth of {self.entity_id} v{self.version}"

    @property
    def is_current(self) -> bool:
        return self.superseded_by_id is None
