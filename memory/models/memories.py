"""Free-text memories an agent or the operator stored ("remember this"), kept whole beside the
graph and linked to every entity they mention (docs/memories.md). The raw event comes first;
a Memory is what consolidation made of it, so a rebuild recreates it from the log."""

from __future__ import annotations

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models.expressions import RawSQL
from pgvector.django import HnswIndex, SparseVectorField, VectorField

from memory import clock
from memory.models.embeddings import EMBEDDING_DIMENSION, SPARSE_DIMENSION
from memory.models.events import MemoryEvent
from memory.models.graph import Entity
from memory.models.observations import Observation
from memory.models.taxonomy import MemoryType, Namespace, Referent, Valence

# The heaviest latent terms of a memory's sparse vector its index holds (recall reads its
# nearest through it, then scores them on every term).
SPARSE_HEAD_TERMS = 64

# English and French stems of the text, accents folded (configurations of 0011_text_search),
# and of who said it: "what did Caroline say about the trip?" finds her turns when their text
# does not name her (migration 0025).
SEARCH_SQL = (
    "setweight(to_tsvector('cortex_en'::regconfig, coalesce(text, '')), 'A') || "
    "setweight(to_tsvector('cortex_fr'::regconfig, coalesce(text, '')), 'B') || "
    "setweight(to_tsvector('cortex_en'::regconfig, coalesce(actor, '')), 'C') || "
    "setweight(to_tsvector('cortex_fr'::regconfig, coalesce(actor, '')), 'C')"
)


class Memory(models.Model):
    event = models.OneToOneField(MemoryEvent, on_delete=models.PROTECT, related_name="+",
                                 help_text="The raw event it came from (provenance).")
    source = models.TextField(help_text="Who stored it: api:<agent>, operator:<username>.")
    source_id = models.TextField(help_text="The event's source_id.")
    observation = models.ForeignKey(Observation, on_delete=models.PROTECT, related_name="+",
                                    null=True, blank=True)
    text = models.TextField()
    actor = models.TextField(blank=True, default="")
    project = models.TextField(blank=True, default="")
    occurred_at = models.DateTimeField()
    metadata = models.JSONField(default=dict, blank=True)
    language = models.CharField(max_length=16, blank=True, default="")
    # Its own decay parameters, from the grid cell of its namespace (config/decay.yaml).
    namespace = models.ForeignKey(Namespace, on_delete=models.PROTECT, related_name="+",
                                  db_index=False)
    memory_type = models.CharField(max_length=12, choices=MemoryType.choices)
    referent = models.CharField(max_length=12, choices=Referent.choices)
    base = models.FloatField()
    half_life_days = models.FloatField()
    valence = models.CharField(max_length=10, choices=Valence.choices, default=Valence.NEUTRAL)
    pinned = models.BooleanField(default=False)
    retrieval_count = models.PositiveIntegerField(default=0)
    last_reinforced_at = models.DateTimeField()
    search = models.GeneratedField(
        expression=RawSQL(SEARCH_SQL, []), output_field=SearchVectorField(), db_persist=True)
    embedded = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=clock.now)

    class Meta:
        verbose_name_plural = "memories"
        indexes = [
            GinIndex(fields=["search"], name="memory_search"),
            models.Index(fields=["project", "occurred_at"], name="memory_project_time"),
            models.Index(fields=["occurred_at", "id"], name="memory_time"),
            models.Index(fields=["id"], name="memory_not_embedded",
                         condition=models.Q(embedded=False)),
        ]

    def __str__(self) -> str:
        return self.text[:80]


class MemoryMention(models.Model):
    """An entity a memory names, as what (person, project, place, organization, tool,
    library, date...) and how it was written."""

    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="mentions",
                               db_index=False)
    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="memory_mentions")
    role = models.CharField(max_length=32)
    surface = models.CharField(max_length=300, blank=True, default="")
    value = models.CharField(max_length=64, blank=True, default="",
                             help_text="A date or time, ISO 8601, for date mentions.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["memory", "entity", "role"],
                                    name="memory_mention_unique"),
        ]

    def __str__(self) -> str:
        return f"memory {self.memory_id} mentions {self.entity_id} ({self.role})"


class MemoryEmbedding(models.Model):
    """A memory's text embedded offline (the embedder is slow); `Memory.embedded` says
    whether it is done. Its vectors stay in the row, out of TOAST (migration 0035)."""

    memory = models.OneToOneField(Memory, on_delete=models.CASCADE, primary_key=True,
                                  related_name="embedding")
    vector = VectorField(dimensions=EMBEDDING_DIMENSION)
    # The learned sparse "latent terms" of the same text (recall's sparse strategy).
    sparse = SparseVectorField(dimensions=SPARSE_DIMENSION, null=True, blank=True)
    # Both again for the memory in the context of the turn it answers (the previous one of
    # its conversation), when it answers one: recall scores a reply by both.
    context_vector = VectorField(dimensions=EMBEDDING_DIMENSION, null=True, blank=True)
    context_sparse = SparseVectorField(dimensions=SPARSE_DIMENSION, null=True, blank=True)
    # What the sparse vectors' HNSW index holds: each one's SPARSE_HEAD_TERMS heaviest terms
    # (an index on the whole vector compares every term; computing the head in the query
    # costs a fraction of a millisecond a row, and PostgreSQL computes the ORDER BY value
    # of every row it returns).
    sparse_head = models.GeneratedField(
        expression=RawSQL(f"cortex_sparse_head(sparse, {SPARSE_HEAD_TERMS})", []),
        output_field=SparseVectorField(dimensions=SPARSE_DIMENSION), db_persist=True)
    model = models.CharField(max_length=100)
    dimension = models.PositiveSmallIntegerField()
    embedded_at = models.DateTimeField(default=clock.now)

    class Meta:
        indexes = [
            HnswIndex(name="memory_embedding_hnsw", fields=["vector"], m=16, ef_construction=64,
                      opclasses=["vector_cosine_ops"]),
            HnswIndex(name="memory_embedding_head_hnsw", fields=["sparse_head"], m=16,
                      ef_construction=64, opclasses=["sparsevec_ip_ops"]),
        ]

    def __str__(self) -> str:
        return f"embedding of memory {self.memory_id}"
