"""The query's exact cosine similarity to candidates another strategy found (docs/recall.md).

The vector strategy's own list is the approximate nearest neighbours of the whole graph; a
memory that full-text found may sit beyond them (hundreds of notes of the same kind about
other people come nearer), and would then count for nothing in the vector's share. Scoring
every candidate of the union exactly lets the embedding tell apart what full-text cannot
(a French question about an English note, all of them naming the same person). For
entities, `memory.selectors.recall.vector_candidates` does the same in its one statement.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from django.db import connection

from memory.selectors.recall import vector_literal


def memory_similarities(*, vector: Sequence[float], memory_ids: Collection[int]
                        ) -> dict[int, float]:
    """Memory id -> cosine similarity of its embedding to `vector` (embedded ones only)."""
    if not memory_ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT memory_id, 1 - (vector <=> %s::vector) FROM memory_memoryembedding
               WHERE memory_id = ANY(%s)""", [vector_literal(vector), list(memory_ids)])
        return {row[0]: float(row[1]) for row in cursor.fetchall()}
