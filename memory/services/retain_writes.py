"""What one chunk of the Retain Job will write, gathered in memory observation by observation
and written by memory.services.retain_flush."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from memory.retain.extraction import ObservationView
from memory.services.retain_graph import FactRow

# Observations of this category carry a free-text memory, written whole with the chunk.
MEMORY_CATEGORY = "memory"


@dataclass
class Edge:
    count: int = 0
    first: datetime | None = None
    last: datetime | None = None
    observations: set[str] = field(default_factory=set)

    def add(self, at: datetime, observation_id: str) -> None:
        self.count += 1
        self.first = at if self.first is None else min(self.first, at)
        self.last = at if self.last is None else max(self.last, at)
        self.observations.add(observation_id)


@dataclass
class Outcome:
    observation_id: str
    status: str
    schema_fit: float | None = None
    route: str = ""
    error: str = ""


@dataclass
class ConflictRow:
    entity_key: str
    existing: FactRow
    new: FactRow
    jaccard: float
    observation_id: str
    created_at: datetime


@dataclass
class ReviewRow:
    observation_id: str
    schema_fit: float
    created_at: datetime
    entity_keys: list[str]


@dataclass
class MemoryWrite:
    """A memory to write: its observation, and the entities its refs resolved to."""

    view: ObservationView
    keys: dict[str, str]


@dataclass
class Regeneration:
    reasons: set[str] = field(default_factory=set)
    strength: float | None = None
    at: datetime | None = None


@dataclass
class ChunkWrites:
    attempted: bool = False  # the observations' outcome counts an attempt (memory.services.retain)
    created: list[str] = field(default_factory=list)
    mentions: dict[tuple[str, str, str], tuple[bool, datetime]] = field(default_factory=dict)
    edges: dict[tuple[str, str, str], Edge] = field(default_factory=lambda: defaultdict(Edge))
    new_facts: list[FactRow] = field(default_factory=list)
    touched_facts: dict[int, FactRow] = field(default_factory=dict)
    fact_evidence: list[tuple[FactRow, str]] = field(default_factory=list)
    conflicts: list[ConflictRow] = field(default_factory=list)
    reviews: list[ReviewRow] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    regenerations: dict[str, Regeneration] = field(
        default_factory=lambda: defaultdict(Regeneration))
    activated: set[str] = field(default_factory=set)
    memories: list[MemoryWrite] = field(default_factory=list)

    def mention(self, key: str, observation_id: str, role: str, *, reinforced: bool,
                at: datetime) -> None:
        previous = self.mentions.get((key, observation_id, role))
        self.mentions[(key, observation_id, role)] = (
            reinforced or (previous is not None and previous[0]), at)

    def regenerate(self, key: str, reason: str, *, at: datetime,
                   strength: float | None = None) -> None:
        entry = self.regenerations[key]
        entry.reasons.add(reason)
        entry.at = at if entry.at is None else max(entry.at, at)
        if strength is not None:
            entry.strength = strength
