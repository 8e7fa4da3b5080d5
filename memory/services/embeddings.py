"""The offline passes after the Retain Job's writes: embed entities' names (never inline in
the job), then deduplicate by cosine similarity within each namespace.

The dedup pass takes entities waiting for it in their canonical order (created_at, key)
and compares each only with older active entities of its namespace, so its outcome does not
depend on when it runs: the incremental path and a replay merge the same pairs. It stops at
the first entity not embedded yet. The comparison is exact (no approximate index) up to
`retain.dedup.exact_limit` entities in a namespace; beyond, the HNSW index finds the
candidates.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q
from pgvector import Vector
from pgvector.django import CosineDistance

from memory import clock
from memory.config import DecayConfig, config_get
from memory.models import DedupState, Entity, EntityEmbedding, EntityStatus, MergeReason
from memory.models.embeddings import EMBEDDING_DIMENSION, embedding_unread
from memory.models.memories import Memory
from memory.retain.embedders import Embedder, embedder_get
from memory.retain.names import name_embedding_text, names_agree
from memory.services.locks import retain_lock
from memory.services.memories_embed import memory_embed_pending
from memory.services.merges import entity_merge
from memory.services.retain_steps import matches_any

logger = logging.getLogger(__name__)


_MISSING_ROWS = """
INSERT INTO memory_entityembedding (entity_id, namespace_id, text, dedup, model)
SELECT e.id, e.namespace_id, left(e.display_name, 300), 'skipped', ''
FROM memory_entity AS e
WHERE NOT EXISTS (SELECT 1 FROM memory_entityembedding AS m WHERE m.entity_id = e.id)
ON CONFLICT DO NOTHING
"""


@dataclass
class PassReport:
    embedded: int = 0
    merged: int = 0
    checked: int = 0
    memories_embedded: int = 0


def entity_embed_pending(*, config: DecayConfig | None = None, limit: int | None = None) -> int:
    """Embed the entities not embedded yet with the configured embedder; returns how many."""
    config = config or config_get()
    embedder = embedder_get(config.retain.embedder)
    if embedder.dimension != EMBEDDING_DIMENSION:
        raise ValueError(f"embedder {embedder.model_id} has {embedder.dimension} dimensions; "
                         f"the column holds {EMBEDDING_DIMENSION} (a migration is needed)")
    with connection.cursor() as cursor:
        cursor.execute(_MISSING_ROWS)
    done = 0
    while limit is None or done < limit:
        rows = list(EntityEmbedding.objects.filter(embedding_unread(embedder.model_id))
                    .exclude(entity__status=EntityStatus.MERGED)
                    .select_related("entity", "namespace")
                    .order_by("entity__created_at", "entity__key")
                    [:config.retain.embed_batch_size])
        if not rows:
            break
        # The Retain Job stores the text to embed; a row it did not write holds the name.
        texts = [name_embedding_text(row.text or row.entity.display_name,
                                     namespace=row.namespace.path,
                                     path_names=config.retain.path_names) for row in rows]
        _vectors_save(rows, texts, _vectors_of(texts, embedder), model=embedder.model_id,
                      dimension=embedder.dimension)
        done += len(rows)
    return done


def _vectors_of(texts: list[str], embedder: Embedder) -> list[Any]:
    """Each text's vector, None for an empty one (nothing to embed)."""
    read = [text for text in texts if text]
    vectors = iter(embedder.embed(read) if read else [])
    return [next(vectors) if text else None for text in texts]


_VECTORS_SAVE = """
UPDATE memory_entityembedding AS m
SET vector = v.vector::vector, text = v.text, model = %s,
    dimension = CASE WHEN v.vector IS NULL THEN NULL ELSE %s END, embedded_at = %s
FROM unnest(%s::bigint[], %s::text[], %s::text[]) AS v(entity_id, text, vector)
WHERE m.entity_id = v.entity_id
"""


def _vectors_save(rows: list[EntityEmbedding], texts: list[str], vectors: list[Any], *,
                  model: str, dimension: int) -> None:
    """One statement for a batch: bulk_update's CASE over 64 vectors of 384 floats cost more
    of the first import's CPU than the statement (each value an expression Django resolves).
    The vectors' text is pgvector's own (what the field stores)."""
    with connection.cursor() as cursor:
        cursor.execute(_VECTORS_SAVE, [model, dimension, clock.now(),
                                       [row.entity_id for row in rows], texts,
                                       [None if vector is None else Vector._to_db(vector)
                                        for vector in vectors]])


def _frontier(model: str) -> Entity | None:
    """The first entity (canonical order) still waiting for its embedding."""
    waiting = EntityEmbedding.objects.filter(embedding_unread(model)).exclude(
        entity__status=EntityStatus.MERGED)
    return (Entity.objects.filter(pk__in=waiting.values("entity_id"))
            .order_by("created_at", "key").first())


def _older(entity: Entity) -> Q:
    return (Q(entity__created_at__lt=entity.created_at)
            | Q(entity__created_at=entity.created_at, entity__key__lt=entity.key))


def _candidates(row: EntityEmbedding, model: str, exact: bool,
                count: int) -> list[tuple[EntityEmbedding, float]]:
    entity = row.entity
    pool = (EntityEmbedding.objects.filter(namespace_id=row.namespace_id, model=model,
                                           entity__status=EntityStatus.ACTIVE,
                                           vector__isnull=False)
            .filter(_older(entity)).exclude(entity_id=entity.pk).select_related("entity"))
    with transaction.atomic(), connection.cursor() as cursor:
        if exact:
            cursor.execute("SET LOCAL enable_indexscan = off")  # exact, not the HNSW index
        else:
            cursor.execute("SET LOCAL hnsw.iterative_scan = strict_order")
        ranked = pool.annotate(distance=CosineDistance("vector", row.vector)).order_by(
            "distance", "entity__created_at", "entity__key")[:count]
        return [(other, 1.0 - float(other.distance)) for other in ranked]


def _same(row: EntityEmbedding, other: EntityEmbedding, cosine: float,
          config: DecayConfig) -> bool:
    dedup = config.retain.dedup
    path = row.entity.key.rpartition(":")[0]
    if matches_any(path, dedup.person_like):
        return cosine >= dedup.person_cosine_threshold and names_agree(
            row.entity.display_name, other.entity.display_name)
    return cosine >= dedup.cosine_threshold


def entity_dedup_pending(*, config: DecayConfig | None = None) -> PassReport:
    """Merge each entity waiting for dedup into the most similar older one of its namespace,
    when similar enough (one whose name has no vector, a file path's, is compared with
    none). The caller holds the retain lock."""
    config = config or config_get()
    model = embedder_get(config.retain.embedder).model_id
    report = PassReport()
    frontier = _frontier(model)
    waiting = (EntityEmbedding.objects.filter(dedup=DedupState.PENDING, model=model)
               .select_related("entity").order_by("entity__created_at", "entity__key"))
    if frontier is not None:
        waiting = waiting.filter(
            Q(entity__created_at__lt=frontier.created_at)
            | Q(entity__created_at=frontier.created_at, entity__key__lt=frontier.key))
    sizes: dict[int, int] = {}
    for row in waiting:
        report.checked += 1
        if row.entity.status == EntityStatus.ACTIVE and row.vector is not None:
            if row.namespace_id not in sizes:
                sizes[row.namespace_id] = EntityEmbedding.objects.filter(
                    namespace_id=row.namespace_id).count()
            exact = sizes[row.namespace_id] <= config.retain.dedup.exact_limit
            for other, cosine in _candidates(row, model, exact, config.retain.dedup.candidates):
                if _same(row, other, cosine, config):
                    entity_merge(merged_id=row.entity_id, survivor_id=other.entity_id,
                                 reason=MergeReason.EMBEDDING, similarity=round(cosine, 6),
                                 config=config, now=row.entity.created_at)
                    report.merged += 1
                    break
        EntityEmbedding.objects.filter(pk=row.pk).update(dedup=DedupState.DONE)
    return report


def embedding_waiting(*, config: DecayConfig | None = None) -> bool:
    """Whether `embedding_passes_run` has anything to do: an entity without its vector (or
    with another model's), one waiting for the dedup, a memory without its vector. Reads
    only: what an unchanged re-run of the first import asks."""
    config = config or config_get()
    model = embedder_get(config.retain.embedder).model_id
    rows = EntityEmbedding.objects.exclude(entity__status=EntityStatus.MERGED)
    return (Entity.objects.filter(~Exists(EntityEmbedding.objects.filter(entity=OuterRef("pk"))))
            .exists()
            or rows.filter(embedding_unread(model)).exists()
            or EntityEmbedding.objects.filter(dedup=DedupState.PENDING).exists()
            or Memory.objects.filter(embedded=False).exists())


def embedding_passes_run(*, config: DecayConfig | None = None) -> PassReport:
    """Embed what is missing (outside the lock: slow), then deduplicate (under it)."""
    config = config or config_get()
    embedded = entity_embed_pending(config=config)
    with retain_lock():
        report = entity_dedup_pending(config=config)
    report.embedded = embedded
    report.memories_embedded = memory_embed_pending(config=config,
                                                    limit=config.memories.embed_per_pass)
    return report
