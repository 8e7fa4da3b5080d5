"""Facts are claims on an entity, with their polarity and lemmas (compared across English
and French); a Conflict pairs two contradicting facts for review."""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models

from memory import clock
from memory.models.graph import Entity
from memory.models.observations import Observation


class FactStatus(models.TextChoices):
    ACTIVE = "active"
    CONTESTED = "contested", "contested (a conflict awaits review)"
    REJECTED = "rejected"
    SCOPED = "scoped", "scoped (kept beside a contradicting claim)"
    QUARANTINED = "quarantined", "quarantined (dark matter awaiting review)"


class Fact(models.Model):
    """A claim held about an entity. The same content lemmas with the same polarity are the
    same fact, whatever the wording or the language ("use uv" / "utilise uv")."""

    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="facts",
                               db_index=False)
    claim = models.CharField(max_length=500, help_text="As first stated.")
    lemma_key = models.CharField(max_length=500, help_text="Sorted content lemmas.")
    lemmas = ArrayField(models.CharField(max_length=100), default=list)
    polarity = models.SmallIntegerField(help_text="+1 affirmative, -1 negated.")
    scope = models.CharField(max_length=300, blank=True, default="")
    language = models.CharField(max_length=16, blank=True, default="")
    status = models.CharField(max_length=12, choices=FactStatus.choices,
                              default=FactStatus.ACTIVE)
    evidence_count = models.PositiveIntegerField(default=1)
    first_seen_at = models.DateTimeField()
    last_seen_at = models.DateTimeField()
    observation = models.ForeignKey(Observation, on_delete=models.PROTECT, related_name="+",
                                    null=True, blank=True, help_text="The first to state it.")
    event_ids = ArrayField(models.CharField(max_length=26), default=list, blank=True)
    created_at = models.DateTimeField(default=clock.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entity", "lemma_key", "polarity"],
                                    name="fact_unique_claim"),
        ]

    def __str__(self) -> str:
        return f"{'' if self.polarity > 0 else 'NOT '}{self.claim}"


class FactEvidence(models.Model):
    fact = models.ForeignKey(Fact, on_delete=models.PROTECT, related_name="evidence",
                             db_index=False)
    observation = models.ForeignKey(Observation, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["fact", "observation"], name="fact_evidence_unique"),
        ]

    def __str__(self) -> str:
        return f"fact {self.fact_id} in {self.observation_id}"


class ConflictStatus(models.TextChoices):
    OPEN = "open"
    KEPT_EXISTING = "kept_existing", "kept the existing claim"
    KEPT_NEW = "kept_new", "kept the new claim"
    KEPT_BOTH = "kept_both", "kept both, as scoped"
    REJECTED_NEW = "rejected_new", "rejected the new claim"
    WITHDRAWN = "withdrawn", "withdrawn (the merge that caused it was split)"


class Conflict(models.Model):
    """A new claim contradicting an existing one on the same entity, queued for review."""

    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="conflicts")
    existing = models.ForeignKey(Fact, on_delete=models.PROTECT, related_name="+")
    new = models.ForeignKey(Fact, on_delete=models.PROTECT, related_name="+")
    jaccard = models.FloatField()
    observation = models.ForeignKey(Observation, on_delete=models.PROTECT, related_name="+",
                                    null=True, blank=True)
    status = models.CharField(max_length=16, choices=ConflictStatus.choices,
                              default=ConflictStatus.OPEN)
    created_at = models.DateTimeField(help_text="When the newer claim was made.")
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.CharField(max_length=150, blank=True, default="")
    note = models.TextField(blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["existing", "new"], name="conflict_unique_pair"),
        ]
        indexes = [models.Index(fields=["status", "created_at"], name="conflict_queue")]

    def __str__(self) -> str:
        return f"conflict on {self.entity_id}: {self.existing_id} vs {self.new_id}"
