"""What one compiled-truth document is made of, as read from the graph and the raw log."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class EntityView:
    key: str
    namespace: str
    slug: str
    display_name: str
    aliases: tuple[str, ...]
    memory_type: str
    referent: str
    status: str
    route: str
    pinned: bool
    strength: float | None  # at `as_of`; None when pinned
    retrieval_count: int
    created_at: datetime
    last_reinforced_at: datetime


@dataclass(frozen=True)
class FactView:
    claim: str
    polarity: int
    status: str
    scope: str
    evidence_count: int
    first_seen_at: datetime
    last_seen_at: datetime
    event_ids: tuple[str, ...]

    @property
    def contested(self) -> bool:
        return self.status == "contested"


@dataclass(frozen=True)
class RelationView:
    relation_type: str
    outgoing: bool  # this entity is the source
    other_key: str
    other_name: str
    weight: float
    evidence_count: int


@dataclass(frozen=True)
class MemoryView:
    text: str
    strength: float | None  # None when pinned
    occurred_at: datetime
    source: str
    event_id: str


@dataclass(frozen=True)
class EventView:
    id: str
    source: str
    type: str
    subtype: str
    occurred_at: datetime


@dataclass(frozen=True)
class TimelineEntry:
    at: datetime
    category: str
    topic: str
    role: str
    events: tuple[EventView, ...]
    event_count: int


@dataclass(frozen=True)
class Snapshot:
    entity: EntityView
    as_of: datetime
    version: int
    injectable_threshold: float
    relation_threshold: float
    facts: tuple[FactView, ...] = ()
    facts_total: int = 0
    relations: tuple[RelationView, ...] = ()
    relations_total: int = 0
    memories: tuple[MemoryView, ...] = ()
    memories_total: int = 0
    timeline: tuple[TimelineEntry, ...] = ()
    mentions_total: int = 0
    provenance: tuple[str, ...] = field(default=())
    provenance_total: int = 0
