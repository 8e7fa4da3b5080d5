"""Reads of free-text memories: those that mention an entity, text search, a page of the
list (with which are not embedded yet). Nothing here reinforces (docs/memories.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db.models import F, Q, QuerySet

from memory import clock
from memory.config import DecayConfig, config_get
from memory.decay.formulas import EntityState, entity_strength
from memory.models.graph import Entity
from memory.models.memories import Memory, MemoryMention


def previous_turn_sql(memory: str, value: str) -> str:
    """A scalar subquery: `value` (an expression over `p`) of the turn the memory aliased
    `memory` answers, the previous memory of its conversation (same project, source and
    session, at most the placeholder's minutes before it), or NULL."""
    return f"""(SELECT {value} FROM memory_memory p
        WHERE p.project = {memory}.project AND p.source = {memory}.source
          AND p.id <> {memory}.id AND p.occurred_at <= {memory}.occurred_at
          AND p.occurred_at >= {memory}.occurred_at - %s * interval '1 minute'
          AND (p.occurred_at < {memory}.occurred_at OR p.id < {memory}.id)
          AND coalesce(p.metadata->>'session', '') = coalesce({memory}.metadata->>'session', '')
        ORDER BY p.occurred_at DESC, p.id DESC LIMIT 1)"""


@dataclass(frozen=True)
class MemoryHit:
    id: int
    text: str
    actor: str
    project: str
    occurred_at: datetime
    event_id: str
    source: str
    source_id: str
    strength: float
    embedded: bool
    rank: float = 0.0
    mentions: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (entity key, role)


def memory_strength(memory: Memory, *, now: datetime, config: DecayConfig) -> float:
    """A memory decays like an entity of its grid cell (the same formula)."""
    state = EntityState(base=memory.base, half_life_days=memory.half_life_days,
                        valence=memory.valence, retrieval_count=memory.retrieval_count,
                        pinned=memory.pinned)
    return entity_strength(state, last_reinforced_at=memory.last_reinforced_at, now=now,
                           config=config)


def _mentions_of(ids: Sequence[int]) -> dict[int, list[tuple[str, str]]]:
    found: dict[int, list[tuple[str, str]]] = {i: [] for i in ids}
    rows = (MemoryMention.objects.filter(memory_id__in=list(ids))
            .order_by("memory_id", "role", "entity__key")
            .values_list("memory_id", "entity__key", "role"))
    for memory_id, key, role in rows:
        found[memory_id].append((key, role))
    return found


def _hits(memories: Sequence[Memory], *, now: datetime, config: DecayConfig,
          with_mentions: bool = True) -> list[MemoryHit]:
    mentions = _mentions_of([m.pk for m in memories]) if with_mentions else {}
    return [
        MemoryHit(id=m.pk, text=m.text, actor=m.actor, project=m.project,
                  occurred_at=m.occurred_at, event_id=m.event_id, source=m.source,
                  source_id=m.source_id, strength=memory_strength(m, now=now, config=config),
                  embedded=m.embedded, rank=float(getattr(m, "rank", 0.0) or 0.0),
                  mentions=tuple(mentions.get(m.pk, ())))
        for m in memories
    ]


def merged_into(entity_id: int) -> set[int]:
    """The entity and every entity merged into it (through chains of merges)."""
    found, frontier = {entity_id}, {entity_id}
    while frontier:
        frontier = set(Entity.objects.filter(merged_into_id__in=frontier)
                       .values_list("id", flat=True)) - found
        found |= frontier
    return found


def memories_of_entity(*, entity_id: int, limit: int = 20, now: datetime | None = None,
                       config: DecayConfig | None = None) -> list[MemoryHit]:
    """The memories that mention an entity (or one merged into it), strongest first (ties:
    newest first)."""
    config = config or config_get()
    now = now or clock.now()
    ids = MemoryMention.objects.filter(entity_id__in=merged_into(entity_id)).values("memory_id")
    memories = list(Memory.objects.filter(pk__in=ids).order_by("-occurred_at", "-id")
                    .defer("search", "metadata"))
    hits = _hits(memories, now=now, config=config)
    hits.sort(key=lambda hit: (-hit.strength, -hit.occurred_at.timestamp(), -hit.id))
    return hits[:limit]


def memory_search_query(text: str) -> SearchQuery:
    """The query in English and in French, accents folded (the column's two configurations)."""
    english = SearchQuery(text, config="cortex_en", search_type="websearch")
    french = SearchQuery(text, config="cortex_fr", search_type="websearch")
    return english | french


def memory_search_text(*, query: str, limit: int = 20, project: str | None = None,
                       now: datetime | None = None,
                       config: DecayConfig | None = None) -> list[MemoryHit]:
    """Memories matching `query` (full text over the consolidated ones, EN and FR, accents
    folded), best ranked first."""
    config = config or config_get()
    now = now or clock.now()
    search = memory_search_query(query)
    queryset = Memory.objects.filter(search=search)
    if project:
        queryset = queryset.filter(project=project)
    ranked = (queryset.annotate(rank=SearchRank(F("search"), search))
              .order_by("-rank", "-occurred_at", "-id").defer("search", "metadata")[:limit])
    return _hits(list(ranked), now=now, config=config)


@dataclass(frozen=True)
class MemoryFilters:
    project: str | None = None
    actor: str | None = None
    embedded: bool | None = None


@dataclass(frozen=True)
class MemoryPage:
    memories: list[MemoryHit]
    cursor: int | None  # the last id of this page; pass it back for the next
    has_more: bool
    not_embedded: int  # how many memories (matching the filters) wait for their vector


def _filtered(filters: MemoryFilters) -> QuerySet[Memory]:
    queryset = Memory.objects.all()
    if filters.project is not None:
        queryset = queryset.filter(project=filters.project)
    if filters.actor is not None:
        queryset = queryset.filter(actor=filters.actor)
    if filters.embedded is not None:
        queryset = queryset.filter(embedded=filters.embedded)
    return queryset


def memory_list(*, filters: MemoryFilters, cursor: int | None, limit: int,
                now: datetime | None = None, config: DecayConfig | None = None) -> MemoryPage:
    """Memories in the order they were consolidated (id), a page after `cursor`."""
    config = config or config_get()
    queryset = _filtered(filters)
    page_query = queryset if cursor is None else queryset.filter(Q(pk__gt=cursor))
    rows = list(page_query.order_by("id").defer("search", "metadata")[:limit + 1])
    has_more = len(rows) > limit
    rows = rows[:limit]
    waiting = _filtered(MemoryFilters(filters.project, filters.actor, False)).count() \
        if filters.embedded is not False else queryset.count()
    return MemoryPage(memories=_hits(rows, now=now or clock.now(), config=config),
                      cursor=rows[-1].pk if rows else cursor, has_more=has_more,
                      not_embedded=waiting)
