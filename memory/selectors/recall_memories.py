"""Recall's strategies for `unit=memory` (docs/recall.md), one statement each: the memories
full-text ranks best (BM25 over the stored text vector), the nearest by the dense embedding
and by the learned sparse one; then one statement that scores every candidate of the union
by every strategy exactly (a memory one strategy found and another missed still gets the
other's true score) and reads what a hit shows.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection

from memory.selectors.recall import Scope, hnsw_settings, memory_where, settings_hold
from memory.selectors.recall_bm25 import bm25_sql
from memory.selectors.recall_terms import TextQuery

Ranked = list[tuple[int, float]]


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


def sparse_literal(indices: Sequence[int], values: Sequence[float], dimension: int) -> str:
    """pgvector's sparsevec literal (its indices count from 1)."""
    terms = ",".join(f"{int(i) + 1}:{float(v):.6g}" for i, v in zip(indices, values,
                                                                     strict=True))
    return f"{{{terms}}}/{dimension}"


def _nearest(column: str, operator: str, literal: str, cast: str, scope: Scope, limit: int,
             ef_search: int) -> Ranked:
    where, params = memory_where(scope)
    sql = f"""SELECT m.id, -(v.{column} {operator} %s::{cast}) FROM memory_memoryembedding v
              JOIN memory_memory m ON m.id = v.memory_id
              WHERE v.{column} IS NOT NULL AND {where}
              ORDER BY v.{column} {operator} %s::{cast} LIMIT %s"""
    with connection.cursor() as cursor:
        settings_hold(hnsw_settings(ef_search))
        cursor.execute(sql, [literal, *params, literal, limit])
        return [(row[0], float(row[1])) for row in cursor.fetchall()]


def dense_memories(*, vector: str, scope: Scope, limit: int, ef_search: int) -> Ranked:
    """(memory id, cosine similarity) of the nearest by the dense embedding."""
    return [(ident, 1 + score) for ident, score in
            _nearest("vector", "<=>", vector, "vector", scope, limit, ef_search)]


def window_memories(*, vector: str, scope: Scope, start: datetime, end: datetime,
                    limit: int) -> Ranked:
    """(memory id, cosine similarity) of the nearest by the dense embedding among the
    memories of [start, end) (exactly: an index scan would filter after its nearest)."""
    where, params = memory_where(scope)
    return [(ident, 1 - distance) for ident, distance in _rows(
        f"""SELECT m.id, v.vector <=> %s::vector FROM memory_memoryembedding v
            JOIN memory_memory m ON m.id = v.memory_id
            WHERE v.vector IS NOT NULL AND m.occurred_at >= %s AND m.occurred_at < %s
              AND {where}
            ORDER BY (v.vector <=> %s::vector) + 0, m.id LIMIT %s""",
        [vector, start, end, *params, vector, limit])]


def sparse_memories(*, sparse: str, scope: Scope, limit: int, ef_search: int) -> Ranked:
    """(memory id, inner product) of the nearest by the learned sparse vector."""
    return _nearest("sparse", "<#>", sparse, "sparsevec", scope, limit, ef_search)


@dataclass(frozen=True)
class Scored:
    """A candidate memory's exact score by each strategy that ran (None: not embedded yet)."""

    fulltext: float | None
    vector: float | None
    # The same in the context of the turn it answers (its own when it answers none).
    vector_context: float | None
    sparse: float | None
    sparse_context: float | None


def memories_scored(*, ids: Collection[int], text: TextQuery | None, vector: str | None,
                    sparse: str | None) -> dict[int, Scored]:
    """Every candidate scored by every strategy that ran, in one statement."""
    if not ids:
        return {}
    score, score_params = _bm25(text) if text is not None else ("NULL::float8", [])
    dense = ("1 - (v.vector <=> %s::vector), "
             "1 - (coalesce(v.context_vector, v.vector) <=> %s::vector)"
             if vector is not None else "NULL::float8, NULL::float8")
    sparse_sql = ("-(v.sparse <#> %s::sparsevec), "
                  "-(coalesce(v.context_sparse, v.sparse) <#> %s::sparsevec)"
                  if sparse is not None else "NULL::float8, NULL::float8")
    rows = _rows(
        f"""SELECT m.id, {score}, {dense}, {sparse_sql}
            FROM memory_memory m LEFT JOIN memory_memoryembedding v ON v.memory_id = m.id
            WHERE m.id = ANY(%s)""",
        [*score_params, *([vector] * 2 if vector is not None else []),
         *([sparse] * 2 if sparse is not None else []), list(ids)])
    return {row[0]: Scored(*(None if x is None else float(x) for x in row[1:]))
            for row in rows}
