"""Provenance rows: names of entities, and the observations that mentioned an entity or
asserted a relation."""

from __future__ import annotations

from django.db import models

from memory.models.graph import Entity, Relation
from memory.models.observations import Observation
from memory.models.taxonomy import Namespace


class EntityAlias(models.Model):
    """A normalized name (casefold, no accents, no punctuation) of an entity in a namespace.

    The first entity to claim a name keeps it; a merged entity's names lead to it, and the
    lookup follows `merged_into` to the survivor."""

    namespace = models.ForeignKey(Namespace, on_delete=models.PROTECT, related_name="+",
                                  db_index=False)
    normalized = models.CharField(max_length=300)
    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="alias_rows")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["namespace", "normalized"], name="entity_alias_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.normalized} -> {self.entity_id}"


class EntityMention(models.Model):
    """An observation mentioning an entity, in a role; `reinforced` once it counted as a recall."""

    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="mentions",
                               db_index=False)
    observation = models.ForeignKey(Observation, on_delete=models.PROTECT,
                                    related_name="mentions")
    role = models.CharField(max_length=64, blank=True, default="")
    reinforced = models.BooleanField(default=False)
    at = models.DateTimeField(help_text="The observation's timestamp.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entity", "observation", "role"],
                                    name="entity_mention_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.entity_id} in {self.observation_id} ({self.role})"


class RelationEvidence(models.Model):
    relation = models.ForeignKey(Relation, on_delete=models.PROTECT, related_name="evidence",
                                 db_index=False)
    observation = models.ForeignKey(Observation, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["relation", "observation"],
                                    name="relation_evidence_unique"),
        ]

    def __str__(self) -> str:
        return f"relation {self.relation_id} in {self.observation_id}"
