"""What a detector is: `detect(graph, now, config) -> proposals` (drafts the services
submit), and how a draft carries its evidence."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from actuation.models import TargetRepository
from actuation.selectors.graph import Graph, Grounding, Occurrence
from memory.config import DecayConfig


@dataclasses.dataclass(frozen=True)
class Quote:
    text: str
    by: str
    event: str = ""


@dataclasses.dataclass(frozen=True)
class Item:
    """One rule or line of a draft: `key` names it across nights (what a dropped or rejected
    item is remembered by), `line` is what it adds, `evidence` what it rests on (sessions,
    last seen, how often)."""

    key: str
    line: str
    evidence: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Draft:
    detector: str
    diff_type: str
    repository: TargetRepository
    file_path: str
    pattern_key: str
    short_name: str
    title: str
    rationale: str
    before: str | None
    after: str
    grounding: list[Grounding]
    occurrences: list[Occurrence]
    quotes: list[Quote] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)
    # What counts as the pattern recurring after the change landed (see services.outcomes).
    recurrence: dict[str, Any] = dataclasses.field(default_factory=dict)
    # Its rules or lines (one for a single change); the operator may drop some.
    items: list[Item] = dataclasses.field(default_factory=list)
    # The owned section of the file the items' lines go in ("" for the allowlist, a skill).
    section: str = ""
    # The rule that let it through, in words (shown to the reviewer and by the bench).
    admitted_by: str = ""
    # How many times the pattern was seen, when its occurrences are not that (a skill's are
    # every tool call of its sessions: it was seen once a session).
    times: int | None = None

    @property
    def weight(self) -> tuple[int, int]:
        """How evidenced it is: its sessions, then the times it was seen (the budget's
        order)."""
        sessions = {o.session for o in self.occurrences if o.session}
        return len(sessions), len(self.occurrences) if self.times is None else self.times

    def evidence(self) -> dict[str, Any]:
        events = sorted({e for o in self.occurrences for e in o.events})
        return {
            "entities": [dataclasses.asdict(g) for g in self.grounding],
            "observations": sorted({o.observation for o in self.occurrences if o.observation}),
            "events": events,
            "sessions": sorted({o.session for o in self.occurrences if o.session}),
            "quotes": [dataclasses.asdict(q) for q in self.quotes],
            "recurrence": self.recurrence,
            "admitted_by": self.admitted_by,
        }


DetectFunc = Callable[[Graph, datetime, DecayConfig], Sequence[Draft]]


@dataclasses.dataclass(frozen=True)
class Detector:
    name: str
    diff_type: str
    detect: DetectFunc


_detectors: dict[str, Detector] = {}


def detector_register(detector: Detector) -> Detector:
    _detectors[detector.name] = detector
    return detector


def detectors() -> list[Detector]:
    return [_detectors[name] for name in sorted(_detectors)]


def memory_file(repository: TargetRepository, config: DecayConfig) -> str:
    return repository.memory_file or config.actuation.memory_entry.file
