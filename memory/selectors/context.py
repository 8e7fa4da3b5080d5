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
from memory.context.render import ClaimLine, EntityBlockData, MemoryLine, Said
from memory.models import (
    CompiledTruth,
    ContextInjection,
    Entity,
    EntityStatus,
    Fact,
    FactStatus,
    MemoryEvent,
    Relation,
)
from memory.retain.extraction import scope_holds_in, scope_projects
from memory.retain.text import polarity as words_polarity
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


def _holds_in(project: str) -> Q:
    """The facts whose scope names `project` (`project:a`, `project:a (...)`, or one of a
    list `project:a, project:b`)."""
    name = f"project:{project}"
    return (Q(scope=name) | Q(scope__startswith=f"{name} (") | Q(scope__startswith=f"{name}, ")
            | Q(scope__endswith=f", {name}") | Q(scope__contains=f", {name},")
            | Q(scope__contains=f", {name} ("))


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
    own = _holds_in(project)
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


def context_project_known(*, project: str) -> bool:
    """Whether Cortex has seen the project: an event of it was captured."""
    return MemoryEvent.objects.filter(project=project).exists()


# Of the candidates, those the observations of another project's sessions mention and no
# observation of this project's does (an observation's project is its first event's).
_ELSEWHERE = """
WITH c(id) AS (SELECT DISTINCT unnest(%s::bigint[]))
SELECT c.id FROM c
WHERE NOT EXISTS (
    SELECT 1 FROM memory_entitymention m
    JOIN memory_observation o ON o.id = m.observation_id
    JOIN memory_memoryevent ev ON ev.id = o.event_ids[1]
    WHERE m.entity_id = c.id AND ev.project = %s)
  AND EXISTS (
    SELECT 1 FROM memory_entitymention m
    JOIN memory_observation o ON o.id = m.observation_id
    JOIN memory_memoryevent ev ON ev.id = o.event_ids[1]
    WHERE m.entity_id = c.id AND ev.project <> '' AND ev.project <> %s)
"""


def context_foreign_ids(*, project: str, entity_ids: Collection[int]) -> set[int]:
    """Those of `entity_ids` that are another project's: an operator's rule none of whose
    claims holds in `project` (neither its own nor every project's), any other entity met in
    other projects' sessions and never in this one's (their files, their pitfalls, their
    tools). What no project's session names (a memory's person, a global preference) is no
    project's."""
    ids = list(dict.fromkeys(entity_ids))
    if not project or not ids:
        return set()
    spoken = _spoken_by_operator(ids)
    scopes: dict[int, list[str]] = {}
    for entity_id, scope in (Fact.objects.filter(entity_id__in=list(spoken))
                             .exclude(status__in=[FactStatus.REJECTED, FactStatus.QUARANTINED])
                             .values_list("entity_id", "scope")):
        scopes.setdefault(entity_id, []).append(scope)
    foreign = {pk for pk in spoken
               if not any(scope_holds_in(scope, project) for scope in scopes.get(pk, ()))}
    others = [pk for pk in ids if pk not in spoken]
    if others:
        with connection.cursor() as cursor:
            cursor.execute(_ELSEWHERE, [others, project, project])
            foreign |= {row[0] for row in cursor.fetchall()}
    return foreign


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


def _in_project(facts: list[Fact], project: str) -> list[Fact]:
    """The facts that hold in `project`: its own and those of every project, less a global
    claim the project's own contradicts (the project's rule is its exception)."""
    held = [f for f in facts if scope_holds_in(f.scope, project)]
    own = {(f.lemma_key, f.polarity) for f in held if project in scope_projects(f.scope)}
    return [f for f in held if project in scope_projects(f.scope)
            or (f.lemma_key, -f.polarity) not in own]


def _claims(ids: Collection[int], *, per_entity: int, by_operator: set[int],
            project: str = "") -> dict[int, list[ClaimLine]]:
    by_entity: dict[int, list[Fact]] = {}
    facts = (Fact.objects.filter(entity_id__in=list(ids))
             .exclude(status__in=[FactStatus.REJECTED, FactStatus.QUARANTINED])
             .order_by("entity_id", "-evidence_count", "-last_seen_at", "id"))
    for fact in facts.only("entity_id", "claim", "lemma_key", "polarity", "status", "scope"):
        by_entity.setdefault(fact.entity_id, []).append(fact)
    kept = {pk: (_in_project(rows, project) if project else rows)[:per_entity]
            for pk, rows in by_entity.items()}
    said = _said([f.pk for pk, rows in kept.items() if pk in by_operator for f in rows],
                 project=project)
    return {pk: [ClaimLine(claim=f.claim, polarity=f.polarity,
                           contested=f.status == FactStatus.CONTESTED,
                           by_operator=pk in by_operator, scope=f.scope, said=said.get(f.pk))
                 for f in rows] for pk, rows in kept.items() if rows}


# Each fact's evidence that quotes the operator best: said in the project asked about, the
# latest first.
_SAID = """
SELECT DISTINCT ON (e.fact_id) e.fact_id, o.timestamp,
       coalesce(nullif(o.payload_typed->>'said', ''), o.payload_typed->>'text', ''),
       coalesce(o.payload_typed->>'project', ''), coalesce(o.payload_typed->>'instead', '')
FROM memory_factevidence e JOIN memory_observation o ON o.id = e.observation_id
WHERE e.fact_id = ANY(%s)
ORDER BY e.fact_id, (coalesce(o.payload_typed->>'project', '') = %s) DESC, o.timestamp DESC
"""


def _said(fact_ids: list[int], *, project: str) -> dict[int, Said]:
    """The operator's own words behind each fact, with the day and the project."""
    if not fact_ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_SAID, [fact_ids, project])
        return {fact_id: Said(words=words, on=on, project=where, instead=instead)
                for fact_id, on, words, where, instead in cursor.fetchall() if words}


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
    for entity in entities_at(ids=missing, at=now, config=config):
        found[entity.pk] = EntityNow(key=entity.key, name=entity.display_name,
                                     strength=entity.strength_now, pinned=entity.pinned)
    return found


def context_blocks_data(*, entity_ids: Sequence[int], now: datetime, config: DecayConfig,
                        facts_per_entity: int, memories_per_entity: int,
                        known: Mapping[int, EntityNow] | None = None,
                        matched_memories: Mapping[int, Sequence[int]] | None = None,
                        project: str = "") -> dict[int, EntityBlockData]:
    """Each entity's block material, evaluated at `now` (a handful of queries in all);
    `known`: entities a recall at `now` already read; `matched_memories`: the memories that
    brought each into it, given before its latest; `project`: only the claims that hold in
    it, and an operator's rule named as it holds there."""
    ids = list(dict.fromkeys(entity_ids))
    entities = _entities_now(ids, known=known or {}, now=now, config=config)
    current = {c.entity_id: c for c in CompiledTruth.objects.filter(
        entity_id__in=ids, superseded_by__isnull=True).only("entity_id", "version", "markdown")}
    spoken = _spoken_by_operator(ids)
    claims = _claims(ids, per_entity=facts_per_entity, by_operator=spoken, project=project)
    memories = _memories(ids, per_entity=memories_per_entity, matched=matched_memories or {})
    data = {}
    for pk, entity in entities.items():
        compiled = current.get(pk)
        held = claims.get(pk, ())
        # a rule is named as it holds here: "always use requests" where the operator said so,
        # though it was first said as "never use requests" elsewhere
        name = held[0].claim if pk in spoken and held and \
            words_polarity(entity.name) != held[0].polarity else entity.name
        data[pk] = EntityBlockData(
            entity_id=pk, key=entity.key, name=name, strength=entity.strength,
            pinned=entity.pinned, summary=_summary(compiled.markdown) if compiled else "",
            claims=tuple(held), memories=tuple(memories.get(pk, ())),
            compiled_version=compiled.version if compiled else None)
    return data


def context_ledger(*, agent: str, session: str, entity_ids: Collection[int]) -> dict[int, str]:
    """Entity id -> the digest of the block the session was last given for it."""
    if not session:
        return {}
    return dict(ContextInjection.objects.filter(agent=agent, session=session,
                                                entity_id__in=list(entity_ids))
                .values_list("entity_id", "digest"))
