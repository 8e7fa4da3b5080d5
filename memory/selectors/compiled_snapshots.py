"""The snapshots compiled-truth documents are rendered from, for a batch of entities at once:
the entity, its shown facts, visible relations, memories, recent mentions (observation, raw
events) and the event ids it rests on (docs/compiled-truth.md)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import F

from memory.compiled.snapshot import (
    EntityView,
    EventView,
    FactView,
    MemoryView,
    RelationView,
    Snapshot,
    TimelineEntry,
)
from memory.config import DecayConfig
from memory.decay.sql import strength_sql
from memory.models import Entity, Memory, MemoryEvent, Relation
from memory.selectors.compiled_truth import MEMORY_COLUMNS, SHOWN_FACTS, CompiledState
from memory.selectors.relations import WEIGHT_NOW, relation_visible

_FACTS = """
SELECT entity_id, claim, polarity, status, scope, evidence_count, first_seen_at,
       last_seen_at, event_ids
FROM (SELECT f.*, row_number() OVER (
          PARTITION BY f.entity_id
          ORDER BY (f.status = 'contested') DESC, f.evidence_count DESC, f.last_seen_at DESC, f.id
      ) AS rn
      FROM memory_fact f WHERE f.entity_id = ANY(%s) AND f.status = ANY(%s)) x
WHERE rn <= %s
ORDER BY entity_id, rn
"""

_MENTIONS = """
SELECT e.id, m.at, m.role, o.category, o.topic, o.event_ids, o.id
FROM unnest(%s::bigint[]) AS e(id)
CROSS JOIN LATERAL (
    SELECT at, role, observation_id FROM memory_entitymention
    WHERE entity_id = e.id ORDER BY at DESC, observation_id DESC LIMIT %s
) m
JOIN memory_observation o ON o.id = m.observation_id
ORDER BY e.id, m.at DESC, o.id DESC
"""

_MENTION_COUNTS = """
SELECT entity_id, count(DISTINCT observation_id) FROM memory_entitymention
WHERE entity_id = ANY(%s) GROUP BY entity_id
"""


def _fetch(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, list(params))
        return list(cursor.fetchall())


def _entities(ids: list[int]) -> dict[int, dict[str, Any]]:
    rows = Entity.objects.filter(pk__in=ids).values(
        "id", "key", "slug", "display_name", "aliases", "memory_type", "referent", "status",
        "route", "retrieval_count", "created_at", "last_reinforced_at",
        namespace_path=F("namespace__path"))
    return {row["id"]: dict(row) for row in rows}


def _facts(ids: list[int], limit: int) -> dict[int, list[FactView]]:
    out: dict[int, list[FactView]] = defaultdict(list)
    for row in _fetch(_FACTS, [ids, list(SHOWN_FACTS), limit]):
        out[row[0]].append(FactView(
            claim=row[1], polarity=row[2], status=row[3], scope=row[4], evidence_count=row[5],
            first_seen_at=row[6], last_seen_at=row[7], event_ids=tuple(row[8] or ())))
    return out


def _relations(ids: list[int], *, now: datetime, config: DecayConfig,
               limit: int) -> dict[int, list[RelationView]]:
    out: dict[int, list[RelationView]] = defaultdict(list)
    visible = relation_visible(now=now, config=config, queryset=Relation.objects.all())
    sides = (("source_id", "target", True), ("target_id", "source", False))
    for own, other, outgoing in sides:
        rows = visible.filter(**{f"{own}__in": ids}).values_list(
            own, "relation_type", f"{other}__key", f"{other}__display_name", WEIGHT_NOW,
            "evidence_count")
        for entity_id, rtype, key, name, weight, evidence in rows:
            out[entity_id].append(RelationView(
                relation_type=rtype, outgoing=outgoing, other_key=key, other_name=name or key,
                weight=weight, evidence_count=evidence))
    for views in out.values():
        views.sort(key=lambda r: (-r.weight, r.relation_type, r.other_key, not r.outgoing))
        del views[limit:]
    return out


def _memories(ids: list[int], *, now: datetime, config: DecayConfig,
              limit: int) -> dict[int, list[MemoryView]]:
    rows = (Memory.objects.filter(mentions__entity_id__in=ids)
            .annotate(eid=F("mentions__entity_id"),
                      s=strength_sql(now=now, config=config, cols=MEMORY_COLUMNS))
            .values_list("eid", "id", "text", "s", "pinned", "occurred_at", "source",
                         "event_id").distinct())
    found: dict[int, list[tuple[float, datetime, int, MemoryView]]] = defaultdict(list)
    for eid, pk, text, strength, pinned, occurred_at, source, event_id in rows:
        view = MemoryView(text=text, strength=None if pinned else strength,
                          occurred_at=occurred_at, source=source, event_id=event_id)
        found[eid].append((math.inf if pinned else strength, occurred_at, pk, view))
    out: dict[int, list[MemoryView]] = {}
    for eid, items in found.items():
        items.sort(key=lambda item: (-item[0], -item[1].timestamp(), -item[2]))
        out[eid] = [item[3] for item in items[:limit]]
    return out


def _timeline(ids: list[int], *, config: DecayConfig) -> tuple[
        dict[int, list[TimelineEntry]], dict[int, list[str]]]:
    """Recent mentions as entries (one per observation), and every event id they rest on."""
    section = config.compiled
    rows = _fetch(_MENTIONS, [ids, section.timeline_limit])
    wanted = {eid for row in rows for eid in (row[5] or ())[: section.events_per_entry]}
    events = {
        pk: EventView(id=pk, source=source, type=etype, subtype=subtype, occurred_at=at)
        for pk, source, etype, subtype, at in MemoryEvent.objects.filter(pk__in=wanted)
        .values_list("id", "source", "type", "subtype", "occurred_at")}
    entries: dict[int, list[TimelineEntry]] = defaultdict(list)
    cited: dict[int, list[str]] = defaultdict(list)
    seen: set[tuple[int, str]] = set()
    for entity_id, at, role, category, topic, event_ids, observation_id in rows:
        event_ids = list(event_ids or ())
        cited[entity_id].extend(event_ids)
        if (entity_id, observation_id) in seen:
            continue
        seen.add((entity_id, observation_id))
        shown = tuple(events[e] for e in event_ids[: section.events_per_entry] if e in events)
        entries[entity_id].append(TimelineEntry(at=at, category=category, topic=topic,
                                                role=role, events=shown,
                                                event_count=len(event_ids)))
    return entries, cited


def _mention_counts(ids: list[int]) -> dict[int, int]:
    return dict(_fetch(_MENTION_COUNTS, [ids]))


def _view(row: dict[str, Any], state: CompiledState) -> EntityView:
    return EntityView(
        key=row["key"], namespace=row["namespace_path"], slug=row["slug"],
        display_name=row["display_name"], aliases=tuple(row["aliases"] or ()),
        memory_type=row["memory_type"], referent=row["referent"], status=row["status"],
        route=row["route"], pinned=state.pinned, strength=state.strength,
        retrieval_count=row["retrieval_count"], created_at=row["created_at"],
        last_reinforced_at=row["last_reinforced_at"])


def _provenance(facts: list[FactView], memories: list[MemoryView],
                cited: list[str]) -> list[str]:
    ids = {e for fact in facts for e in fact.event_ids}
    ids.update(m.event_id for m in memories)
    ids.update(cited)
    return sorted(ids, reverse=True)  # ULIDs: the most recent first


def compiled_snapshots(*, states: Sequence[CompiledState], now: datetime,
                       config: DecayConfig) -> list[Snapshot]:
    """One snapshot per state, in the same order (a handful of statements in all)."""
    ids = [s.entity_id for s in states]
    section = config.compiled
    entities = _entities(ids)
    facts = _facts(ids, section.facts_limit)
    relations = _relations(ids, now=now, config=config, limit=section.relations_limit)
    memories = _memories(ids, now=now, config=config, limit=section.memories_limit)
    timeline, cited = _timeline(ids, config=config)
    mentions = _mention_counts(ids)
    snapshots = []
    for state in states:
        eid = state.entity_id
        provenance = _provenance(facts.get(eid, []), memories.get(eid, []), cited.get(eid, []))
        snapshots.append(Snapshot(
            entity=_view(entities[eid], state), as_of=now, version=state.next_version,
            injectable_threshold=config.thresholds.entity_strength,
            relation_threshold=config.thresholds.relation_weight,
            facts=tuple(facts.get(eid, ())), facts_total=state.facts_count,
            relations=tuple(relations.get(eid, ())), relations_total=state.relations_count,
            memories=tuple(memories.get(eid, ())), memories_total=state.memories_count,
            timeline=tuple(timeline.get(eid, ())), mentions_total=mentions.get(eid, 0),
            provenance=tuple(provenance[: section.provenance_limit]),
            provenance_total=len(provenance)))
    return snapshots
