"""The query's exact cosine similarity to candidates another strategy found (docs/recall.md).

The vector strategy's own list is the approximate nearest neighbours of the whole graph; a
memory that full-text found may sit beyond them (hundreds of notes of the same kind about
other people come nearer), and would then count for nothing in the vector's share. Scoring
every candidate of the union exactly lets the embedding tell apart what full-text cannot
(a French question about an English note, all of them naming the same person).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from django.db import connection


def _vector_literal(vector: Sequence[float]) -> str:
    return "[" + ",".join(f"{float(x):.7g}" for x in vector) + "]"


def _similarities(sql: str, vector: Sequence[float], ids: Collection[int]) -> dict[int, float]:
    if not ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(sql, [_vector_literal(vector), list(ids)])
        return {row[0]: float(row[1]) for row in cursor.fetchall()}


def memory_similarities(*, vector: Sequence[float], memory_ids: Collection[int]
                        ) -> dict[int, float]:
    """Memory id -> cosine similarity of its embedding to `vector` (embedded ones only)."""
    return _similarities(
        """SELECT memory_id, 1 - (vector <=> %s::vector) FROM memory_memoryembedding
           WHERE memory_id = ANY(%s)""", vector, memory_ids)


def entity_similarities(*, vector: Sequence[float], entity_ids: Collection[int]
                        ) -> dict[int, float]:
    """Entity id -> cosine similarity of its name's embedding to `vector` (embedded ones)."""
    return _similarities(
        """SELECT entity_id, 1 - (vector <=> %s::vector) FROM memory_entityembedding
           WHERE entity_id = ANY(%s) AND vector IS NOT NULL""", vector, entity_ids)
