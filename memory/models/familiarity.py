"""The schema_fit lookup tables: the namespaces' vocabulary and how often each
(category, target_namespace) pair was retained."""

from __future__ import annotations

from django.db import models


class VocabularyTerm(models.Model):
    """A lemma a namespace uses: its path words, its entities' names and facts, and the topics
    of the observations retained into it (schema_fit's vocabulary share)."""

    namespace = models.CharField(max_length=255)
    lemma = models.CharField(max_length=100)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["namespace", "lemma"], name="vocabulary_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.namespace}: {self.lemma}"


class PairFamiliarity(models.Model):
    """How many observations of a (category, target namespace) pair were retained."""

    category = models.CharField(max_length=64)
    namespace = models.CharField(max_length=255)
    retained = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["category", "namespace"], name="pair_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.category} on {self.namespace}: {self.retained}"
