"""Reads for the console's entity page: its facts with their raw events, its neighbourhood
(relations with their weight now, faded ones included), its compiled-truth versions. Reading
is not a recall: nothing here reinforces."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q

from memory import clock
from memory.config import DecayConfig, config_get
from memory.decay.sql import strength_sql
from memory.errors import NotFound
from memory.models import CompiledTruth, Entity, Fact, Memory, MemoryMention, Relation
from memory.selectors.compiled_truth import MEMORY_COLUMNS
from memory.selectors.entities import STRENGTH_NOW
from memory.selectors.memories import merged_into
from memory.selectors.relations import VISIBLE_NOW, WEIGHT_NOW, relation_with_weight


@dataclass(frozen=True)
class Neighbour:
    relation_id: int
    relation_type: str
    outgoing: bool
    weight: float
    visible: bool
    other_id: int
    other_key: str
    other_name: str


def entity_facts(*, entity_id: int, limit: int) -> list[Fact]:
    """The entity's facts, most recently seen first (their `event_ids` are the raw events)."""
    return list(Fact.objects.filter(entity_id=entity_id)
                .order_by("-last_seen_at", "-id")[:limit])


def entity_memories(*, entity_id: int, limit: int, now: datetime | None = None,
                     config: DecayConfig | None = None) -> list[Memory]:
    """The newest `limit` memories that mention the entity (or one merged into it), each
    annotated with `strength_now` (in SQL: bounded however many mention it)."""
    mentions = MemoryMention.objects.filter(entity_id__in=merged_into(entity_id))
    strength = strength_sql(now=now or clock.now(), config=config or config_get(),
                            cols=MEMORY_COLUMNS)
    return list(Memory.objects.filter(pk__in=mentions.values("memory_id"))
                .defer("search", "metadata").annotate(**{STRENGTH_NOW: strength})
                .order_by("-occurred_at", "-id")[:limit])


def entity_neighbourhood(*, entity: Entity, limit: int, now: datetime | None = None,
                         config: DecayConfig | None = None) -> list[Neighbour]:
    """The entity's `limit` strongest relations now, visible or faded, in one statement."""
    edges = relation_with_weight(
        now=now or clock.now(), config=config or config_get(),
        queryset=Relation.objects.filter(Q(source=entity) | Q(target=entity)),
    ).select_related("source", "target").order_by(f"-{WEIGHT_NOW}", "id")[:limit]
    found = []
    for edge in edges:
        outgoing = edge.source_id == entity.pk
        other = edge.target if outgoing else edge.source
        found.append(Neighbour(
            relation_id=edge.pk, relation_type=edge.relation_type, outgoing=outgoing,
            weight=float(getattr(edge, WEIGHT_NOW)), visible=bool(getattr(edge, VISIBLE_NOW)),
            other_id=other.pk, other_key=other.key, other_name=other.display_name))
    return found


def entity_ids_by_key(*, keys: set[str], limit: int = 200) -> dict[str, int]:
    """The ids of the entities among `keys` (at most `limit` looked up), by key."""
    wanted = sorted(keys)[:limit]
    return dict(Entity.objects.filter(key__in=wanted).values_list("key", "pk"))


def compiled_truth_history(*, entity_id: int, limit: int) -> list[CompiledTruth]:
    """The entity's latest `limit` versions, newest first, without their documents."""
    return list(CompiledTruth.objects.filter(entity_id=entity_id).defer("markdown")
                .order_by("-version")[:limit])


def compiled_truth_pair(*, entity_id: int, old: int, new: int
                        ) -> tuple[CompiledTruth, CompiledTruth]:
    """Two versions of the entity's compiled truth, by number."""
    found = {row.version: row for row in
             CompiledTruth.objects.filter(entity_id=entity_id, version__in=[old, new])}
    missing = [v for v in (old, new) if v not in found]
    if missing:
        raise NotFound(f"No compiled-truth version {missing[0]} for this entity.",
                       fields={"version": "No such version."})
    return found[old], found[new]
