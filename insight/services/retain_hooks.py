"""What insight tells memory's Retain Job (registered from InsightConfig.ready()):

- the horizon: the first event some analyzer has not read yet. Observations derived from
  later events may still be joined by earlier ones, so the job waits for the analyzers
  (memory.retain.horizon);
- how to replay: the analyzers' observations (source `insight:<analyzer>`) are derived
  from the raw log; `cortex rebuild graph` resets the cursors and analyzes it all again.
"""

from __future__ import annotations

from insight.models import AnalyzerCursor
from insight.services.analysis import (
    analysis_cursors_reset,
    analysis_drain,
    analyzed_sources,
    analyzers_for,
)
from memory.retain.horizon import Position
from memory.retain.replay import ObservationProducer
from memory.selectors.events import event_batch_after

PREFIX = "insight:"


def _position_key(position: object) -> str:
    return repr(position)


def analysis_horizon() -> Position | None:
    """The position of the first event an analyzer of its source has not read (None: every
    analyzer has read everything committed)."""
    stored = {(c.analyzer, c.source): c.position for c in AnalyzerCursor.objects.all()}
    first_unread: list[Position] = []
    for source in analyzed_sources():
        positions = {_position_key(stored.get((a.name, source))): stored.get((a.name, source))
                     for a in analyzers_for(source)}
        for position in positions.values():
            events, _ = event_batch_after(cursor=position, limit=1, source=source)
            if events:
                first_unread.append((events[0].txid, events[0].id))
    return min(first_unread) if first_unread else None


def analysis_replay_reset() -> None:
    for source in analyzed_sources():
        analysis_cursors_reset(source=source)


def analysis_replay_run() -> int:
    """Analyze every source's whole log, in commit order; the observations created."""
    return sum(analysis_drain().observations_created.values())


PRODUCER = ObservationProducer(name="insight", prefix=PREFIX, reset=analysis_replay_reset,
                               run=analysis_replay_run)
