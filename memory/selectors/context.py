"""Reads for context assembly: what each candidate entity's block is made of, the pinned
entities, and what a session's ledger already holds (docs/context.md)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
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
    Memory,
    MemoryMention,
    Relation,
)
from memory.selectors.entities import STRENGTH_NOW
from memory.selectors.recall import entities_at

OPERATOR_KEY = "self:operator"
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
    found: dict[int, list[MemoryLine]] = {}
    mentions = (MemoryMention.objects.filter(entity_id__in=list(ids))
                .order_by("entity_id", "-memory__occurred_at")
                .values_list("entity_id", "memory_id"))
    wanted: dict[int, list[int]] = {}
    for entity_id, memory_id in mentions:
        chosen = wanted.setdefault(entity_id, [])
        if len(chosen) < per_entity and memory_id not in chosen:
            chosen.append(memory_id)
    rows = Memory.objects.in_bulk([m for chosen in wanted.values() for m in chosen])
    for entity_id, chosen in wanted.items():
        found[entity_id] = [MemoryLine(text=rows[m].text, source=rows[m].source,
                                       occurred_at=rows[m].occurred_at)
                            for m in chosen if m in rows]
    return found


def context_blocks_data(*, entity_ids: Sequence[int], now: datetime, config: DecayConfig,
                        facts_per_entity: int, memories_per_entity: int
                        ) -> dict[int, EntityBlockData]:
    """Each entity's block material, evaluated at `now` (a handful of queries in all)."""
    ids = list(dict.fromkeys(entity_ids))
    entities = entities_at(ids=ids, at=now, config=config,
                           fields=("id", "key", "display_name", "pinned"))
    current = {c.entity_id: c for c in CompiledTruth.objects.filter(
        entity_id__in=ids, superseded_by__isnull=True).only("entity_id", "version", "markdown")}
    claims = _claims(ids, per_entity=facts_per_entity, by_operator=_spoken_by_operator(ids))
    memories = _memories(ids, per_entity=memories_per_entity)
    data = {}
    for entity in entities:
        compiled = current.get(entity.pk)
        data[entity.pk] = EntityBlockData(
            entity_id=entity.pk, key=entity.key, name=entity.display_name,
            strength=getattr(entity, STRENGTH_NOW), pinned=entity.pinned,
            summary=_summary(compiled.markdown) if compiled else "",
            claims=tuple(claims.get(entity.pk, ())),
            memories=tuple(memories.get(entity.pk, ())),
            compiled_version=compiled.version if compiled else None)
    return data


def context_ledger(*, agent: str, session: str, entity_ids: Collection[int]) -> dict[int, str]:
    """Entity id -> the digest of the block the session was last given for it."""
    if not session:
        return {}
    return dict(ContextInjection.objects.filter(agent=agent, session=session,
                                                entity_id__in=list(entity_ids))
                .values_list("entity_id", "digest"))
