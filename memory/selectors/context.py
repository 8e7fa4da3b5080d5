"""Reads for context assembly: what each candidate entity's block is made of, the pinned
entities, and what a session's ledger already holds (docs/context.md)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from memory.config import DecayConfig
from memory.context.render import ClaimLine, EntityBlockData, MemoryLine
from memory.models import (
    CompiledTruth,
    ContextInjection,
    Entity,
    EntityStatus,
    Fact,
    FactStatus,
    MemoryMention,
    Relation,
)
from memory.selectors.entities import STRENGTH_NOW
from memory.selectors.recall import entities_at

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


def _summary(markdown: str) -> str:
    """The Summary section of a compiled truth, without its heading."""
    _, _, rest = markdown.partition("## Summary")
    return rest.split("\n## ", 1)[0].strip()


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


def _memories(ids: Collection[int], *, per_entity: int) -> dict[int, list[MemoryLine]]:
    """The latest `per_entity` memories mentioning each entity (one statement)."""
    found: dict[int, list[MemoryLine]] = {}
    mentions = (MemoryMention.objects.filter(entity_id__in=list(ids))
                .order_by("entity_id", "-memory__occurred_at")
                .values_list("entity_id", "memory_id", "memory__text", "memory__source",
                             "memory__occurred_at"))
    wanted: dict[int, list[int]] = {}
    for entity_id, memory_id, text, source, occurred_at in mentions:
        chosen = wanted.setdefault(entity_id, [])
        if len(chosen) < per_entity and memory_id not in chosen:
            chosen.append(memory_id)
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
                        known: Mapping[int, EntityNow] | None = None
                        ) -> dict[int, EntityBlockData]:
    """Each entity's block material, evaluated at `now` (a handful of queries in all);
    `known`: entities a recall at `now` already read."""
    ids = list(dict.fromkeys(entity_ids))
    entities = _entities_now(ids, known=known or {}, now=now, config=config)
    current = {c.entity_id: c for c in CompiledTruth.objects.filter(
        entity_id__in=ids, superseded_by__isnull=True).only("entity_id", "version", "markdown")}
    claims = _claims(ids, per_entity=facts_per_entity, by_operator=_spoken_by_operator(ids))
    memories = _memories(ids, per_entity=memories_per_entity)
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
