"""Requests for a new compiled-truth version, written by the Retain Job when an entity
changed enough."""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models

from memory.models.graph import Entity


class RegenerationRequest(models.Model):
    """An entity whose compiled truth should be regenerated (consumed by Layer 3): its
    strength moved past the regeneration threshold, or it gained facts or relations."""

    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="+",
                               db_index=False)
    reasons = ArrayField(models.CharField(max_length=32), default=list)
    strength = models.FloatField(null=True, blank=True,
                                 help_text="Its strength when last requested.")
    requested_at = models.DateTimeField()
    consumed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entity"], condition=models.Q(consumed_at=None),
                                    name="regeneration_one_open"),
        ]
        # The entity alone (its foreign key's lookups): requested_at out of the index, so the
        # Retain Job's upsert of an open request can be a HOT update.
        indexes = [models.Index(fields=["entity"], name="regeneration_entity")]

    def __str__(self) -> str:
        return f"regenerate {self.entity_id} ({', '.join(self.reasons)})"
