"""Reads for Layer 3 (docs/compiled-truth.md): which entities need a new compiled-truth
version (one set-based statement over the graph), and the snapshots their documents are
rendered from (a few statements per batch of entities, never one per entity)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Q, QuerySet, Value

from memory.config import DecayConfig
from memory.decay.sql import EntityColumns, strength_sql
from memory.models import (
    CompiledTruth,
    Entity,
    EntityStatus,
    FactStatus,
    Relation,
)
from memory.selectors.relations import relation_visible

SHOWN_FACTS = (FactStatus.ACTIVE, FactStatus.CONTESTED, FactStatus.SCOPED)
MEMORY_COLUMNS = EntityColumns(pos=Value(0), neg=Value(0), route=Value("normal"))


@dataclass(frozen=True)
class CompiledState:
    """An entity as the change rule sees it, and its current version's record."""

    entity_id: int
    pinned: bool
    strength: float | None
    facts_count: int
    facts_digest: str
    relations_count: int
    relations_digest: str
    memories_count: int
    memories_digest: str
    current_id: int | None
    current_version: int
    reasons: tuple[str, ...]

    @property
    def next_version(self) -> int:
        return self.current_version + 1


def _sql(queryset: QuerySet[Any]) -> tuple[str, list[Any]]:
    sql, params = queryset.query.sql_with_params()
    return sql, list(params)


def _entities_sql(*, now: datetime, config: DecayConfig,
                  entity_ids: Sequence[int] | None) -> tuple[str, list[Any]]:
    queryset = (Entity.objects.filter(status=EntityStatus.ACTIVE) if entity_ids is None
                else Entity.objects.filter(pk__in=list(entity_ids))
                .exclude(status=EntityStatus.MERGED))
    return _sql(queryset.annotate(s=strength_sql(now=now, config=config))
                .values_list("id", "pinned", "s"))


def _visible_sql(*, now: datetime, config: DecayConfig,
                 entity_ids: Sequence[int] | None) -> tuple[str, list[Any]]:
    queryset = Relation.objects.all()
    if entity_ids is not None:
        ids = list(entity_ids)
        queryset = queryset.filter(Q(source_id__in=ids) | Q(target_id__in=ids))
    return _sql(relation_visible(now=now, queryset=queryset, config=config)
                .values_list("id", "source_id", "target_id", "evidence_count"))


# Placeholders, in order: the entities' and the visible relations' statements, the shown
# fact statuses, then the rule's injection and regeneration thresholds, then changed_only.
# A digest is the md5 of what the document shows of each part (ids and states), '' if none.
_STATES = """
WITH ent(id, pinned, s) AS MATERIALIZED ({entities}),
vis(id, source_id, target_id, evidence_count) AS MATERIALIZED ({visible}),
cur AS (
    SELECT c.entity_id, c.id, c.version, c.strength, c.pinned,
           c.facts_digest, c.relations_digest, c.memories_digest
    FROM memory_compiledtruth c JOIN ent ON ent.id = c.entity_id
    WHERE c.superseded_by_id IS NULL
),
fa AS (
    SELECT f.entity_id, count(*) AS n,
           md5(string_agg(f.id || ':' || f.status || ':' || f.evidence_count, ',' ORDER BY f.id))
             AS d
    FROM memory_fact f JOIN ent ON ent.id = f.entity_id
    WHERE f.status = ANY(%s) GROUP BY f.entity_id
),
re AS (
    SELECT x.e AS entity_id, count(*) AS n,
           md5(string_agg(x.id || ':' || x.evidence_count, ',' ORDER BY x.id)) AS d
    FROM (SELECT source_id AS e, id, evidence_count FROM vis
          UNION ALL SELECT target_id, id, evidence_count FROM vis) x
    JOIN ent ON ent.id = x.e GROUP BY x.e
),
me AS (
    SELECT mm.entity_id, count(DISTINCT mm.memory_id) AS n,
           md5(string_agg(DISTINCT mm.memory_id::text, ',' ORDER BY mm.memory_id::text)) AS d
    FROM memory_memorymention mm JOIN ent ON ent.id = mm.entity_id GROUP BY mm.entity_id
),
req AS (SELECT DISTINCT entity_id FROM memory_regenerationrequest WHERE consumed_at IS NULL),
st AS (
    SELECT ent.id, ent.pinned, ent.s,
           coalesce(fa.n, 0) AS fn, coalesce(fa.d, '') AS fd,
           coalesce(re.n, 0) AS rn, coalesce(re.d, '') AS rd,
           coalesce(me.n, 0) AS mn, coalesce(me.d, '') AS md,
           cur.id AS cur_id, coalesce(cur.version, 0) AS cur_version,
           cur.id IS NULL AS first,
           cur.id IS NOT NULL AND cur.pinned IS DISTINCT FROM ent.pinned AS pin,
           cur.id IS NOT NULL AND NOT ent.pinned AND NOT cur.pinned
             AND GREATEST(ent.s, cur.strength) >= %s::float8
             AND ent.s <> cur.strength
             AND abs(ent.s - cur.strength) >= %s::float8 * cur.strength AS moved,
           cur.id IS NOT NULL AND coalesce(fa.d, '') <> cur.facts_digest AS facts,
           cur.id IS NOT NULL AND coalesce(re.d, '') <> cur.relations_digest AS relations,
           cur.id IS NOT NULL AND coalesce(me.d, '') <> cur.memories_digest AS memories,
           req.entity_id IS NOT NULL AS requested
    FROM ent
    LEFT JOIN cur ON cur.entity_id = ent.id
    LEFT JOIN fa ON fa.entity_id = ent.id
    LEFT JOIN re ON re.entity_id = ent.id
    LEFT JOIN me ON me.entity_id = ent.id
    LEFT JOIN req ON req.entity_id = ent.id
)
SELECT id, pinned, s, fn, fd, rn, rd, mn, md, cur_id, cur_version,
       first, pin, moved, facts, relations, memories, requested
FROM st
WHERE NOT %s OR first OR pin OR moved OR facts OR relations OR memories
ORDER BY id
"""
_REASONS = ("first", "pinned", "strength", "facts", "relations", "memories", "requested")


def compiled_states(*, now: datetime, config: DecayConfig,
                    entity_ids: Sequence[int] | None = None,
                    changed_only: bool = True) -> list[CompiledState]:
    """Every active entity (or these entities, whatever their status but merged), with what
    its next version would record; with `changed_only`, only those the rule regenerates:
    no version yet, pinned or unpinned since, strength moved by at least
    `thresholds.regeneration` of the last version's (unless it was and is faded: below
    `thresholds.entity_strength` both then and now), or its shown facts, visible relations
    or memories changed."""
    entities, entity_params = _entities_sql(now=now, config=config, entity_ids=entity_ids)
    visible, visible_params = _visible_sql(now=now, config=config, entity_ids=entity_ids)
    sql = _STATES.format(entities=entities, visible=visible)
    params = [*entity_params, *visible_params, list(SHOWN_FACTS),
              config.thresholds.entity_strength, config.thresholds.regeneration, changed_only]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [_state(row) for row in rows]


def _state(row: Sequence[Any]) -> CompiledState:
    (entity_id, pinned, strength, fn, fd, rn, rd, mn, md, cur_id, cur_version) = row[:11]
    reasons = tuple(name for name, flag in zip(_REASONS, row[11:], strict=True) if flag)
    return CompiledState(
        entity_id=entity_id, pinned=pinned, strength=None if pinned else strength,
        facts_count=fn, facts_digest=fd, relations_count=rn, relations_digest=rd,
        memories_count=mn, memories_digest=md, current_id=cur_id, current_version=cur_version,
        reasons=reasons)


def compiled_active_count() -> int:
    return Entity.objects.filter(status=EntityStatus.ACTIVE).count()


def compiled_truth_current(*, entity_id: int) -> CompiledTruth | None:
    """The entity's current version (one probe of the partial unique index)."""
    return CompiledTruth.objects.filter(entity_id=entity_id, superseded_by=None).first()


def compiled_truth_versions(*, entity_id: int) -> list[CompiledTruth]:
    """Every version of the entity, oldest first."""
    return list(CompiledTruth.objects.filter(entity_id=entity_id).order_by("version"))
