"""The sleep cycle's record: one row per run, and the threshold crossings it saw."""

from __future__ import annotations

from django.db import models

from memory.models.graph import Entity, Relation


class RunStatus(models.TextChoices):
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class SleepCycleRun(models.Model):
    """One sleep cycle. `as_of` is the `now` it evaluated everything at.

    `steps` holds one entry per step, in order:
    `{"name", "status", "started_at", "duration_ms", "counts", "error"}`.
    """

    as_of = models.DateTimeField()
    trigger = models.CharField(max_length=32)
    status = models.CharField(max_length=12, choices=RunStatus.choices, default=RunStatus.RUNNING)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    config_digest = models.CharField(max_length=64)
    steps = models.JSONField(default=list, blank=True)
    counts = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    worker = models.CharField(max_length=200, blank=True, help_text="host:pid that ran it")

    class Meta:
        indexes = [models.Index(fields=["status", "-finished_at"], name="sleep_cycle_status")]

    def __str__(self) -> str:
        return f"run {self.pk} as of {self.as_of:%Y-%m-%d %H:%M} ({self.status})"


class Direction(models.TextChoices):
    ROSE = "rose", "rose above the threshold"
    FELL = "fell", "fell below the threshold"


class EntityTransition(models.Model):
    run = models.ForeignKey(SleepCycleRun, on_delete=models.PROTECT, related_name="+")
    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="transitions")
    direction = models.CharField(max_length=4, choices=Direction.choices)
    before = models.FloatField()
    after = models.FloatField()

    def __str__(self) -> str:
        return f"entity {self.entity_id} {self.direction} ({self.before:.3f}->{self.after:.3f})"


class RelationTransition(models.Model):
    run = models.ForeignKey(SleepCycleRun, on_delete=models.PROTECT, related_name="+")
    relation = models.ForeignKey(Relation, on_delete=models.PROTECT, related_name="transitions")
    direction = models.CharField(max_length=4, choices=Direction.choices)
    before = models.FloatField()
    after = models.FloatField()

    def __str__(self) -> str:
        return f"relation {self.relation_id} {self.direction} ({self.before:.3f}->{self.after:.3f})"
