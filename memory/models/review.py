"""The dark-matter review queue: what came in with a low schema_fit waits for an operator."""

from __future__ import annotations

from django.db import models

from memory.models.graph import Entity
from memory.models.observations import Observation


class ReviewStatus(models.TextChoices):
    OPEN = "open"
    ACCEPTED = "accepted", "accepted into the graph"
    KEPT_QUARANTINED = "kept_quarantined", "kept quarantined"
    MERGED = "merged", "merged into an existing entity"


class ReviewItem(models.Model):
    """Dark matter (schema_fit below the threshold) awaiting the operator."""

    observation = models.OneToOneField(Observation, on_delete=models.PROTECT,
                                       related_name="review_item")
    entities = models.ManyToManyField(Entity, related_name="review_items", blank=True,
                                      help_text="The entities it created, quarantined.")
    schema_fit = models.FloatField()
    status = models.CharField(max_length=16, choices=ReviewStatus.choices,
                              default=ReviewStatus.OPEN)
    created_at = models.DateTimeField(help_text="The observation's timestamp.")
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.CharField(max_length=150, blank=True, default="")
    merged_into = models.ForeignKey(Entity, on_delete=models.PROTECT, null=True, blank=True,
                                    related_name="+")

    class Meta:
        indexes = [models.Index(fields=["status", "created_at"], name="review_queue")]

    def __str__(self) -> str:
        return f"review of {self.observation_id} ({self.status})"
