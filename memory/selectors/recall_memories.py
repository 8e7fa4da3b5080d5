"""Recall's statements for `unit=memory` (docs/recall.md), one per strategy for its
candidates: the memories full-text ranks best (BM25 over the stored text vector) and the
facts it matches, each with what its hit shows; once the query is encoded, the nearest
memories by the dense embedding (and, a query naming a time, by it within that time) and by
the learned sparse one. Then one statement scores every candidate of the union exactly by
every strategy (a memory one strategy found and another missed still gets the other's true
score), with what its hit shows and what its strength is computed from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection

from memory.recall.when import Window
from memory.selectors.memories import previous_turn_sql
from memory.selectors.recall import (
    Scope,
    facts_ranked_sql,
    hnsw_settings,
    memory_where,
    settings_hold,
)
from memory.selectors.recall_bm25 import bm25_sql
from memory.selectors.recall_terms import TextQuery

Ranked = list[tuple[int, float]]
# What the sparse vectors' HNSW index holds (MemoryEmbedding.sparse_head): each memory's
# heaviest latent terms. The sparse strategy's nearest are read through it; every candidate
# is then scored on all its terms.
SPARSE_HEAD = "v.sparse_head"
# A fact's provenance lists its first this many events.
FACT_SOURCES = 5


def _rows(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def _bm25(text: TextQuery) -> tuple[str, Sequence[Any]]:
    k1, b = text.bm25
    return bm25_sql("m.search", text.weights["memories"], k1=k1, b=b)


def fulltext_memories(*, text: TextQuery, scope: Scope, limit: int) -> Ranked:
    """(memory id, BM25) of the best matches."""
    where, params = memory_where(scope)
    score, score_params = _bm25(text)
    return [(row[0], float(row[1])) for row in _rows(
        f"""SELECT m.id, {score} FROM memory_memory m
            WHERE m.search @@ %s::tsquery AND {where}
            ORDER BY 2 DESC, m.id LIMIT %s""",
        [*score_params, text.matching("memories"), *params, limit])]


@dataclass(frozen=True)
class FactFound:
    """A fact full-text matched, with its entity and the sources of its first events."""

    id: int
    rank: float
    claim: str
    polarity: int
    entity_id: int
    entity_key: str
    entity_name: str
    entity_pinned: bool
    sources: tuple[tuple[str, str, str], ...]  # (event id, source, source_id)
    # Drawn only from memories (each of its events stored a memory).
    from_memories: bool


def fulltext_facts_found(*, text: TextQuery, scope: Scope, limit: int) -> list[FactFound]:
    """The facts whose claim matches, best first."""
    ranked, params = facts_ranked_sql(text, scope, "id")
    rows = _rows(
        f"""SELECT f.id, r.rank, f.claim, f.polarity, e.id, e.key, e.display_name, e.pinned,
                   (SELECT coalesce(json_agg(json_build_array(ev.id, ev.source, ev.source_id)
                                             ORDER BY x.n), '[]'::json)
                    FROM unnest(f.event_ids[1:%s]) WITH ORDINALITY AS x(id, n)
                    JOIN memory_memoryevent ev ON ev.id = x.id),
                   cardinality(f.event_ids) > 0 AND NOT EXISTS (
                       SELECT 1 FROM unnest(f.event_ids) AS u(id) WHERE NOT EXISTS (
                           SELECT 1 FROM memory_memory mm WHERE mm.event_id = u.id))
            FROM (SELECT key, rank FROM ({ranked}) AS ranked ORDER BY 2 DESC, 1 LIMIT %s) r
            JOIN memory_fact f ON f.id = r.key JOIN memory_entity e ON e.id = f.entity_id
            ORDER BY r.rank DESC, f.id""",
        [FACT_SOURCES, *params, limit])
    return [FactFound(row[0], float(row[1]), row[2], row[3], row[4], row[5], row[6], row[7],
                      tuple((s[0], s[1], s[2]) for s in row[8]), bool(row[9]))
            for row in rows]


def sparse_literal(indices: Sequence[int], values: Sequence[float], dimension: int) -> str:
    """pgvector's sparsevec literal (its indices count from 1)."""
    terms = ",".join(f"{int(i) + 1}:{float(v):.6g}" for i, v in zip(indices, values,
                                                                     strict=True))
    return f"{{{terms}}}/{dimension}"


@dataclass(frozen=True)
class MemoryFound:
    """A candidate memory: its exact score by each strategy that ran (None: not run, or not
    embedded yet), what its hit shows, and what its strength is computed from."""

    id: int
    fulltext: float | None
    vector: float | None
    # The same in the context of the turn it answers (its own when it answers none).
    vector_context: float | None
    sparse: float | None
    sparse_context: float | None
    text: str
    event_id: str
    source: str
    source_id: str
    language: str
    occurred_at: datetime
    pinned: bool
    base: float
    half_life_days: float
    valence: str
    retrieval_count: int
    last_reinforced_at: datetime
    # The turn it answers, when both have a speaker (conversation turns), when asked for.
    previous: int | None = None


# The previous turn's id, when the memory and it both have a speaker.
_PREVIOUS_SPOKEN = ("CASE WHEN m.actor <> '' THEN "
                    + previous_turn_sql("m", "CASE WHEN p.actor <> '' THEN p.id END")
                    + " END")


def _nearest_sql(column: str, order: str, where: str) -> str:
    """The ids of the memories embedded in `column` that pass `where`, by `order` (its
    placeholder is the query's vector), then the limit's placeholder."""
    return f"""SELECT m.id FROM memory_memoryembedding v
               JOIN memory_memory m ON m.id = v.memory_id
               WHERE v.{column} IS NOT NULL AND {where}
               ORDER BY {order} LIMIT %s"""


# Each vector strategy's HNSW order (its embedding's column is named after it).
NEAREST = {"vector": "v.vector <=> %s::vector", "sparse": f"{SPARSE_HEAD} <#> %s::sparsevec"}


def memories_nearest(*, strategy: str, literal: str, scope: Scope, limit: int,
                     ef_search: int, window: Window | None = None) -> list[int]:
    """The ids of the `limit` memories nearest the query's `literal` by `strategy` (vector:
    the dense embedding, sparse: the learned sparse one through its head's index); with a
    `window`, the `limit` nearest within it too, found exactly (an index scan would filter
    after its nearest). One statement."""
    order = NEAREST[strategy]
    where, where_params = memory_where(scope)
    parts = [_nearest_sql(strategy, order, where)]
    params: list[Any] = [*where_params, literal, limit]
    if window is not None:
        parts.append(_nearest_sql(strategy, f"({order}) + 0, m.id",
                                  f"m.occurred_at >= %s AND m.occurred_at < %s AND {where}"))
        params += [window.start, window.end, *where_params, literal, limit]
    settings_hold(hnsw_settings(ef_search))
    return [row[0] for row in _rows(" UNION ".join(f"({part})" for part in parts), params)]


def memories_scored(*, ids: Sequence[int], text: TextQuery | None, vector: str | None,
                    sparse: str | None, turn_gap_minutes: float | None = None
                    ) -> dict[int, MemoryFound]:
    """These memories, each scored exactly by every strategy that ran (a memory one strategy
    found and another missed still gets the other's true score), in one statement; with
    `turn_gap_minutes`, each with the turn it answers (`previous`)."""
    score, score_params = _bm25(text) if text is not None else ("NULL::float8", [])
    dense = ("1 - (v.vector <=> %s::vector), "
             "1 - (coalesce(v.context_vector, v.vector) <=> %s::vector)"
             if vector is not None else "NULL::float8, NULL::float8")
    sparse_sql = ("-(v.sparse <#> %s::sparsevec), "
                  "-(coalesce(v.context_sparse, v.sparse) <#> %s::sparsevec)"
                  if sparse is not None else "NULL::float8, NULL::float8")
    previous = _PREVIOUS_SPOKEN if turn_gap_minutes is not None else "NULL::bigint"
    rows = _rows(
        f"""SELECT m.id, {score}, {dense}, {sparse_sql}, m.text, m.event_id, m.source,
                   m.source_id, m.language, m.occurred_at, m.pinned, m.base, m.half_life_days,
                   m.valence, m.retrieval_count, m.last_reinforced_at, {previous}
            FROM memory_memory m LEFT JOIN memory_memoryembedding v ON v.memory_id = m.id
            WHERE m.id = ANY(%s)""",
        [*score_params, *([vector] * 2 if vector is not None else []),
         *([sparse] * 2 if sparse is not None else []),
         *([turn_gap_minutes] if turn_gap_minutes is not None else []), list(set(ids))])
    return {row[0]: _found(row) for row in rows}


def _found(row: tuple[Any, ...]) -> MemoryFound:
    ident, fulltext, vector, vector_context, sparse, sparse_context, *shown = row
    return MemoryFound(ident, _float(fulltext), _float(vector), _float(vector_context),
                       _float(sparse), _float(sparse_context), *shown)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)
