"""Writes to relations: assert an edge again (reinforce), keep classes in line with the config."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Case, CharField, Value, When

from memory import clock
from memory.config import DecayConfig, config_get
from memory.models import Relation

Edge = tuple[int, int, str]  # (source entity id, target entity id, relation type)

_UPSERT = f"""
INSERT INTO {Relation._meta.db_table}
    (source_id, target_id, relation_type, relation_class, last_reinforced_at,
     evidence_count, created_at)
SELECT s, t, rt, rc, %(now)s, 1, %(now)s
FROM unnest(%(sources)s::bigint[], %(targets)s::bigint[], %(types)s::text[], %(classes)s::text[])
     AS e(s, t, rt, rc)
ON CONFLICT (source_id, target_id, relation_type) DO UPDATE SET
    evidence_count = {Relation._meta.db_table}.evidence_count + 1,
    last_reinforced_at = GREATEST({Relation._meta.db_table}.last_reinforced_at,
                                  EXCLUDED.last_reinforced_at)
"""


def relation_reinforce(
    *, edges: Iterable[Edge], now: datetime | None = None, config: DecayConfig | None = None
) -> int:
    """Assert each edge (again), in one statement: a new edge is created with its class
    from the config; an existing one gains evidence and its clock restarts.
    An edge listed twice in one call counts once. Returns the number of edges written."""
    now = now or clock.now()
    config = config or config_get()
    unique = sorted(set(edges))
    for source, target, relation_type in unique:
        if source == target:
            raise ValueError(f"a relation needs two entities, got {source} twice")
        if not relation_type:
            raise ValueError("a relation needs a type")
    if not unique:
        return 0
    params: dict[str, Any] = {
        "now": now,
        "sources": [e[0] for e in unique],
        "targets": [e[1] for e in unique],
        "types": [e[2] for e in unique],
        "classes": [config.graph.class_of(e[2]) for e in unique],
    }
    with connection.cursor() as cursor:
        cursor.execute(_UPSERT, params)
        return int(cursor.rowcount)


def relation_class_sql(*, config: DecayConfig) -> Case:
    whens = [When(relation_type=rtype, then=Value(cls))
             for rtype, cls in config.graph.relation_types.items()]
    return Case(*whens, default=Value(config.graph.default_class), output_field=CharField())


def relation_reclassify(*, config: DecayConfig | None = None) -> int:
    """Give every relation the class its type has in the config now; returns how many moved."""
    config = config or config_get()
    target = relation_class_sql(config=config)
    return Relation.objects.exclude(relation_class=target).update(relation_class=target)
