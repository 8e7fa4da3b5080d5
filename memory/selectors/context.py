"""Reads for context assembly: what each candidate entity's block is made of, the pinned
entities, and what a session's ledger already holds (docs/context.md)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import Exists, OuterRef, Q

from memory.compiled.render import TIES_LEAD
from memory.config import DecayConfig
from memory.context.render import ClaimLine, EntityBlockData, MemoryLine
from memory.models import (
    CompiledTruth,
    ContextInjection,
    Entity,
    EntityStatus,
    Fact,
    FactStatus,
    Relation,
)
from memory.selectors.entities import STRENGTH_NOW, entity_with_strength
from memory.selectors.recall import entities_at
from memory.selectors.taxonomy import namespace_regex

OPERATOR_KEY = "self:operator"


@dataclass(frozen=True)
class EntityNow:
    """An entity as a recall at the same time already read it: no need to read it again."""

    key: str
    name: str
    strength: float | None
    pinned: bool
SPOKEN = ("instructed", "corrected", "prefers", "avoids")


def context_pinned_ids(*, limit: int) -> list[int]:
    return list(Entity.objects.filter(pinned=True, status=EntityStatus.ACTIVE)
                .order_by("key").values_list("id", flat=True)[:limit])


def context_standing_ids(*, project: str, at: datetime, threshold: float, limit: int,
                         config: DecayConfig) -> list[int]:
    """The operator's standing instructions and preferences that hold in `project` (said
    about it, or about every project), at or above `threshold` at `at`: the project's own
    first, each group strongest first."""
    if not project or limit < 1:
        return []
    # the operator's spoken rules first (a few hundred at most): the entity table is not scanned
    spoken = list(Relation.objects.filter(source__key=OPERATOR_KEY, relation_type__in=SPOKEN)
                  .values_list("target_id", flat=True).distinct())
    if not spoken:
        return []
    own = Q(scope=f"project:{project}") | Q(scope__startswith=f"project:{project} (")
    everywhere = Q(scope="global") | Q(scope__startswith="global (")
    held = Fact.objects.filter(entity_id=OuterRef("pk")).exclude(
        status__in=[FactStatus.REJECTED, FactStatus.QUARANTINED])
    entities = Entity.objects.filter(Exists(held.filter(own | everywhere)), id__in=spoken,
                                     status=EntityStatus.ACTIVE)
    rows = entity_with_strength(now=at, config=config, queryset=entities)
    return list(rows.filter(**{f"{STRENGTH_NOW}__gte": threshold})
                .order_by(Exists(held.filter(own)).desc(), f"-{STRENGTH_NOW}", "id")
                .values_list("id", flat=True)[:limit])


# The entities of the pitfall namespaces that observations of the project's sessions
# mentioned (an observation's project is its first event's), the most sessions first.
_PITFALLS = """
SELECT m.entity_id
FROM memory_entitymention AS m
JOIN memory_entity AS en ON en.id = m.entity_id
JOIN memory_namespace AS n ON n.id = en.namespace_id
JOIN memory_observation AS o ON o.id = m.observation_id
JOIN memory_memoryevent AS ev ON ev.id = o.event_ids[1]
WHERE n.path ~ %s AND en.status = %s AND ev.project = %s
  AND o.timestamp <= %s AND o.correlation_session <> ''
GROUP BY m.entity_id
HAVING count(DISTINCT o.correlation_session) >= %s
ORDER BY count(DISTINCT o.correlation_session) DESC, max(o.timestamp) DESC, m.entity_id
LIMIT %s
"""


def context_pitfall_ids(*, project: str, at: datetime, namespace: str, min_sessions: int,
                        limit: int) -> list[int]:
    """The project's known pitfalls as of `at`: root causes (entities of the `namespace`
    pattern) met in at least `min_sessions` of its sessions, the most recurring first."""
    if not project or limit < 1:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_PITFALLS, [namespace_regex(namespace), EntityStatus.ACTIVE, project, at,
                                   min_sessions, limit])
        return [row[0] for row in cursor.fetchall()]


def _summary(markdown: str) -> str:
    """What a block takes from the Summary of a compiled truth: its strongest ties. The rest
    of that section is counts (bookkeeping, not knowledge, and a third of a bare block's
    tokens) and the claims held, which the block lists itself, attributed."""
    _, _, rest = markdown.partition("## Summary")
    section = rest.split("\n## ", 1)[0]
    return next((line.strip() for line in section.splitlines()
                 if line.startswith(TIES_LEAD)), "")


def _spoken_by_operator(ids: Collection[int]) -> set[int]:
    return set(Relation.objects.filter(target_id__in=list(ids), source__key=OPERATOR_KEY,
                                       relation_type__in=SPOKEN)
               .values_list("target_id", flat=True))


def _claims(ids: Collection[int], *, per_entity: int,
            by_operator: set[int]) -> dict[int, list[ClaimLine]]:
    found: dict[int, list[ClaimLine]] = {}
    facts = (Fact.objects.filter(entity_id__in=list(ids))
             .exclude(status__in=[FactStatus.REJECTED, FactStatus.QUARANTINED])
             .order_by("entity_id", "-evidence_count", "-last_seen_at", "id"))
    for fact in facts.only("entity_id", "claim", "polarity", "status", "scope"):
        lines = found.setdefault(fact.entity_id, [])
        if len(lines) < per_entity:
            lines.append(ClaimLine(claim=fact.claim, polarity=fact.polarity,
                                   contested=fact.status == FactStatus.CONTESTED,
                                   by_operator=fact.entity_id in by_operator, scope=fact.scope))
    return found


_MEMORIES = """
WITH wanted(entity_id) AS (SELECT * FROM unnest(%s::bigint[])),
matched(entity_id, memory_id, position) AS (
    SELECT * FROM unnest(%s::bigint[], %s::bigint[]) WITH ORDINALITY)
SELECT entity_id, id, text, source, occurred_at FROM (
    SELECT matched.entity_id, m.id, m.text, m.source, m.occurred_at, matched.position
    FROM matched JOIN memory_memory m ON m.id = matched.memory_id
    UNION ALL
    SELECT wanted.entity_id, m.id, m.text, m.source, m.occurred_at, NULL
    FROM wanted CROSS JOIN LATERAL (
        SELECT m.id, m.text, m.source, m.occurred_at FROM memory_memorymention mm
        JOIN memory_memory m ON m.id = mm.memory_id WHERE mm.entity_id = wanted.entity_id
        ORDER BY m.occurred_at DESC, m.id DESC LIMIT %s) AS m
) AS picked ORDER BY entity_id, position NULLS LAST, occurred_at DESC, id DESC
"""


def _memories(ids: Collection[int], *, per_entity: int, matched: Mapping[int, Sequence[int]]
              ) -> dict[int, list[MemoryLine]]:
    """Each entity's memories, `per_entity` different texts: those that matched the query
    first, in the recall's order, then its latest (one statement)."""
    pairs = [(entity_id, memory_id) for entity_id, memory_ids in matched.items()
             if entity_id in ids for memory_id in memory_ids]
    with connection.cursor() as cursor:
        # the latest read thrice over: the same words said again are one line
        cursor.execute(_MEMORIES, [list(ids), [e for e, _ in pairs], [m for _, m in pairs],
                                   3 * per_entity])
        rows = cursor.fetchall()
    found: dict[int, list[MemoryLine]] = {}
    chosen: dict[int, set[str]] = {}
    for entity_id, _, text, source, occurred_at in rows:
        taken = chosen.setdefault(entity_id, set())  # the same words said twice: one line
        if len(taken) < per_entity and text not in taken:
            taken.add(text)
            found.setdefault(entity_id, []).append(
                MemoryLine(text=text, source=source, occurred_at=occurred_at))
    return found


def _entities_now(ids: Sequence[int], *, known: Mapping[int, EntityNow], now: datetime,
                  config: DecayConfig) -> dict[int, EntityNow]:
    """Each entity's key, name, strength at `now` and pin: read for those not `known`."""
    found = {pk: known[pk] for pk in ids if pk in known}
    missing = [pk for pk in ids if pk not in known]
    for entity in entities_at(ids=missing, at=now, config=config,
                              fields=("id", "key", "display_name", "pinned")):
        found[entity.pk] = EntityNow(key=entity.key, name=entity.display_name,
                                     strength=getattr(entity, STRENGTH_NOW),
                                     pinned=entity.pinned)
    return found


def context_blocks_data(*, entity_ids: Sequence[int], now: datetime, config: DecayConfig,
                        facts_per_entity: int, memories_per_entity: int,
                        known: Mapping[int, EntityNow] | None = None,
                        matched_memories: Mapping[int, Sequence[int]] | None = None
                        ) -> dict[int, EntityBlockData]:
    """Each entity's block material, evaluated at `now` (a handful of queries in all);
    `known`: entities a recall at `now` already read; `matched_memories`: the memories that
    brought each into it, given before its latest."""
    ids = list(dict.fromkeys(entity_ids))
    entities = _entities_now(ids, known=known or {}, now=now, config=config)
    current = {c.entity_id: c for c in CompiledTruth.objects.filter(
        entity_id__in=ids, superseded_by__isnull=True).only("entity_id", "version", "markdown")}
    claims = _claims(ids, per_entity=facts_per_entity, by_operator=_spoken_by_operator(ids))
    memories = _memories(ids, per_entity=memories_per_entity, matched=matched_memories or {})
    data = {}
    for pk, entity in entities.items():
        compiled = current.get(pk)
        data[pk] = EntityBlockData(
            entity_id=pk, key=entity.key, name=entity.name, strength=entity.strength,
            pinned=entity.pinned, summary=_summary(compiled.markdown) if compiled else "",
            claims=tuple(claims.get(pk, ())), memories=tuple(memories.get(pk, ())),
            compiled_version=compiled.version if compiled else None)
    return data


def context_ledger(*, agent: str, session: str, entity_ids: Collection[int]) -> dict[int, str]:
    """Entity id -> the digest of the block the session was last given for it."""
    if not session:
        return {}
    return dict(ContextInjection.objects.filter(agent=agent, session=session,
                                                entity_id__in=list(entity_ids))
                .values_list("entity_id", "digest"))
