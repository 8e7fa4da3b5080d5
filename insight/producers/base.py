"""The one interface every producer implements, and the summary it returns."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

Event = dict[str, Any]


@dataclass
class IngestSummary:
    """What one run read and stored; `malformed` counts problems by kind, never fatal."""

    source: str
    files: int = 0
    files_by_kind: Counter[str] = field(default_factory=Counter)
    files_reset: int = 0
    lines: int = 0
    bytes_read: int = 0
    records: int = 0
    events_stored: int = 0
    duplicates: int = 0
    malformed: Counter[str] = field(default_factory=Counter)
    pending_partial_lines: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "files": self.files,
            "files_by_kind": dict(sorted(self.files_by_kind.items())),
            "files_reset": self.files_reset,
            "lines": self.lines,
            "bytes": self.bytes_read,
            "records": self.records,
            "events_stored": self.events_stored,
            "duplicates": self.duplicates,
            "malformed": dict(sorted(self.malformed.items())),
            "pending_partial_lines": self.pending_partial_lines,
            "seconds": round(self.seconds, 3),
        }


class Progress(Protocol):
    """What a producer reports while it runs (a rich bar in the command, nothing in tests)."""

    def start(self, *, files: int, total_bytes: int) -> None: ...

    def advance(self, *, files: int = 0, bytes_read: int = 0, events: int = 0) -> None: ...


class NoProgress:
    def start(self, *, files: int, total_bytes: int) -> None:
        return None

    def advance(self, *, files: int = 0, bytes_read: int = 0, events: int = 0) -> None:
        return None


# Called by the sink inside the transaction that stores a batch, with the marks added
# since the previous batch: producers persist their read position exactly there.
CommitHook = Callable[[list[Mapping[str, Any]]], None]


class Producer(Protocol):
    """A source of MemoryEvents. `run` reads, writes through the sink, and summarizes."""

    source: str

    def run(self, *, progress: Progress) -> IngestSummary: ...
