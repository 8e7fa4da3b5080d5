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

    def evidence(self) -> dict[str, Any]:
        events = sorted({e for o in self.occurrences for e in o.events})
        return {
            "entities": [dataclasses.asdict(g) for g in self.grounding],
            "observations": sorted({o.observation for o in self.occurrences if o.observation}),
            "events": events,
            "sessions": sorted({o.session for o in self.occurrences if o.session}),
            "quotes": [dataclasses.asdict(q) for q in self.quotes],
            "recurrence": self.recurrence,
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
