"""Recall's graph strategy for `unit=memory`: the memories that mention the entities a query
names (docs/recall.md).

A question names someone ("What did Anya Petrova call her kitten?"); hundreds of notes say
the same kind of thing about other people, and full-text or the embedding alone rank some
of them above the one about her. The entities the query names (found by their names, or by
trigram for a misspelling) are seeds: every memory that mentions one is a candidate, scored
by its seed's score, so the notes about her come first and relevance orders them. An entity
mentioned by many memories contributes its `limit` nearest to the query (exactly, by their
embeddings) when the vector strategy is on, its most recent otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.db import connection

from memory.recall.fusion import Candidate
from memory.selectors.recall import Scope, memory_where


def memories_mentioning(*, seeds: Mapping[int, float], scope: Scope, limit: int,
                        vector: str | None) -> list[Candidate]:
    """(("memory", id), the best seed's score it mentions), best first, one memory per text;
    a mention of an entity merged into a seed counts for the seed. `vector`: the query's
    embedding (its literal), or None."""
    if not seeds:
        return []
    where, params = memory_where(scope)
    near, order = (("min(v.vector <=> %s::vector)", "near NULLS LAST") if vector is not None
                   else ("max(m.occurred_at)", "near DESC"))
    join = ("LEFT JOIN memory_memoryembedding v ON v.memory_id = m.id"
            if vector is not None else "")
    # One memory per text: the same words said a hundred times ("that sounds fun") would
    # otherwise fill the list and leave out the one turn that answers.
    sql = f"""
        WITH seed(entity_id, score) AS (SELECT * FROM unnest(%s::bigint[], %s::float8[])),
        named(entity_id, score) AS (
            SELECT entity_id, score FROM seed
            UNION ALL
            SELECT e.id, seed.score FROM memory_entity e JOIN seed
                ON e.merged_into_id = seed.entity_id)
        SELECT id, score FROM (
            SELECT DISTINCT ON (m.text) m.id, max(named.score) AS score, {near} AS near
            FROM named
            JOIN memory_memorymention mm ON mm.entity_id = named.entity_id
            JOIN memory_memory m ON m.id = mm.memory_id
            {join}
            WHERE {where}
            GROUP BY m.id ORDER BY m.text, score DESC, {order}, m.id) AS one_per_text
        ORDER BY score DESC, {order}, id LIMIT %s"""
    ids = list(seeds)
    with connection.cursor() as cursor:
        cursor.execute(sql, [ids, [float(seeds[i]) for i in ids],
                             *([vector] if vector is not None else []),
                             *params, limit])
        return [Candidate(("memory", row[0]), float(row[1])) for row in cursor.fetchall()]


def speakers_of(*, memory_ids: Sequence[int]) -> dict[int, int]:
    """memory id -> the entity that said it (a `speaker` mention), for those that have one."""
    if not memory_ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute("""SELECT mm.memory_id, coalesce(e.merged_into_id, e.id)
                          FROM memory_memorymention mm JOIN memory_entity e ON e.id = mm.entity_id
                          WHERE mm.memory_id = ANY(%s) AND mm.role = 'speaker'""",
                       [list(memory_ids)])
        return dict(cursor.fetchall())

