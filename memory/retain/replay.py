"""Who turns the raw log into observations, for `cortex rebuild graph`.

A producer of observations (insight's analyzers) registers itself here from its
AppConfig.ready(): the rebuild deletes the observations it derived (their `source` starts
with `prefix`), calls `reset` (forget how far it has read) and then `run` (read the whole
log again, in commit order). memory never imports the producers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ObservationProducer:
    name: str
    prefix: str
    reset: Callable[[], None]
    run: Callable[[], int]


_producers: dict[str, ObservationProducer] = {}


def replay_producer_register(producer: ObservationProducer) -> None:
    _producers[producer.name] = producer


def replay_producers() -> list[ObservationProducer]:
    return [_producers[name] for name in sorted(_producers)]


# Layer 3 (compiled truth) and others clear their derived state through these.
_clearers: dict[str, Callable[[], None]] = {}


def rebuild_clear_register(name: str, clear: Callable[[], None]) -> None:
    _clearers[name] = clear


def rebuild_clearers() -> list[Callable[[], None]]:
    return [_clearers[name] for name in sorted(_clearers)]


# Apps above memory whose tables reference the graph (actuation's proposal links) name them
# here: they are truncated with it, and `after` ties them to the rebuilt graph.
_derived: dict[str, tuple[tuple[str, ...], Callable[[], object] | None]] = {}


def rebuild_derived_register(name: str, *, tables: tuple[str, ...],
                             after: Callable[[], object] | None = None) -> None:
    _derived[name] = (tables, after)


def rebuild_derived_tables() -> list[str]:
    return [table for name in sorted(_derived) for table in _derived[name][0]]


def rebuild_derived_after() -> list[Callable[[], object]]:
    return [after for name in sorted(_derived) if (after := _derived[name][1]) is not None]
