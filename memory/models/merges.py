"""What a merge moved, so that a wrong one can be split again."""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models

from memory import clock
from memory.models.graph import Entity


class MergeReason(models.TextChoices):
    EMBEDDING = "embedding", "embeddings (the dedup pass)"
    OPERATOR = "operator"


class EntityMerge(models.Model):
    """One entity merged into another, with what the merge moved (to split it again)."""

    merged = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="merges_out")
    survivor = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="merges_in")
    reason = models.CharField(max_length=12, choices=MergeReason.choices)
    similarity = models.FloatField(null=True, blank=True)
    merged_status = models.CharField(max_length=12, help_text="Its status before the merge.")
    aliases_added = ArrayField(models.CharField(max_length=300), default=list, blank=True)
    # {"entity": {...survivor columns before}, "relations_moved": [[id, "source"|"target"]],
    #  "relations_folded": [{"from", "into", "evidence", "before": {...}}],
    #  "facts_moved": [id], "facts_folded": [...], "conflicts": [id]}
    moved = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=clock.now)
    split_at = models.DateTimeField(null=True, blank=True)
    split_by = models.CharField(max_length=150, blank=True, default="")

    def __str__(self) -> str:
        return f"{self.merged_id} -> {self.survivor_id}"
