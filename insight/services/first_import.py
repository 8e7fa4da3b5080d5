"""The stages after the raw log, run as it fills (`cortex ingest` without --raw-only): the
analyzers read what was committed, the Retain Job retains what the analyzers made, and the
vectors of what it created (entities' names, memories) are computed with the offline passes
of `cortex retain` (embedding, embedding dedup), in turn, until the raw log is complete and
nothing is left pending: `cortex analyze` and `cortex retain` then find nothing to do.

Nothing here is new machinery: analysis batches (insight/services/analysis.py) and retain
runs (memory/services/retain.py) keep their transactions, cursors, horizon and canonical
order, so the graph is the one the sequential commands (or the Celery workers) build, and an
interruption at any point resumes where the committed state says."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass

from insight.services.analysis import analysis_batch_run, analysis_held_back, analyzed_sources
from memory.config import DecayConfig, config_get
from memory.services.backlog import consolidation_waiting
from memory.services.embeddings import embedding_passes_run, entity_embed_pending
from memory.services.locks import RetainBusy, retain_lock
from memory.services.retain import retain_queueing_paused, retain_run


@dataclass
class StageTally:
    """What the stages did so far (read by the progress display)."""

    events_analyzed: int = 0
    observations: int = 0
    observations_created: int = 0
    retained: int = 0
    entities_created: int = 0
    gave_up: int = 0
    embedded: int = 0  # entities' names given their vector
    merged: int = 0  # entities merged into an older one by the embedding dedup
    memories_embedded: int = 0
    held_back: int = 0  # 1: committed events waited, unread, behind a transaction left open

    def as_dict(self) -> dict[str, int]:
        return dict(vars(self))


Report = Callable[[StageTally], None]


def _analyze_step(tally: StageTally, sources: list[str]) -> bool:
    """One batch per source; True when some analyzer moved (or more is waiting)."""
    moved = False
    for source in sources:
        report = analysis_batch_run(source=source)
        tally.events_analyzed += report.events
        tally.observations += report.observations
        tally.observations_created += sum(report.created.values())
        moved = moved or bool(report.events) or report.more
    return moved


def _retain_step(tally: StageTally, config: DecayConfig, lock_timeout: float, *,
                 whole_chunks: bool) -> bool:
    try:
        with retain_lock(timeout=lock_timeout):
            report = retain_run(limit=config.retain.batch_size, config=config,
                                whole_chunks=whole_chunks)
    except RetainBusy:  # a worker (cortex up) is retaining: it does the same work
        return True
    tally.retained += report.processed
    tally.entities_created += report.chunks.created
    tally.gave_up += report.gave_up
    return bool(report.processed or report.gave_up)


def _embed_step(tally: StageTally, config: DecayConfig, seen: list[int]) -> bool:
    """The names of a batch of the entities retained so far given their vector (while the
    retain stage waits for the analysis: the embedder's time is then not on the way). Asked
    only once the Retain Job created entities since a batch found none (`seen`: how many it
    had created then): the question reads every entity."""
    if tally.entities_created <= seen[0]:
        return False
    done = entity_embed_pending(config=config, limit=config.retain.embed_batch_size)
    tally.embedded += done
    if done < config.retain.embed_batch_size:
        seen[0] = tally.entities_created
    return bool(done)


def _embed_rest(tally: StageTally, config: DecayConfig) -> None:
    """The offline passes `cortex retain` runs after the Retain Job, until they find nothing:
    every entity's and memory's vector, the embedding dedup."""
    while True:
        report = embedding_passes_run(config=config)
        tally.embedded += report.embedded
        tally.merged += report.merged
        tally.memories_embedded += report.memories_embedded
        if not (report.embedded or report.merged or report.memories_embedded):
            return


def first_import_follow(
    *,
    raw_done: Callable[[], bool],
    alive: Callable[[], bool],
    report: Report,
    poll_seconds: float,
    lock_timeout: float,
    analyze: bool = True,
    retain: bool = True,
    config: DecayConfig | None = None,
    backlog: Callable[[StageTally], int] | None = None,
    source: str | None = None,
    raw_wait: Callable[[float], object] = time.sleep,
) -> StageTally:
    """Analyze and/or retain as the raw log fills; return once `raw_done()` (for the retain
    stage alone: the analysis is done) held before a round in which no stage found anything
    to do, or when `alive()` fails (the importer is gone: its next run resumes). `backlog`
    (a stage alone in its process, behind its upstream): how much its upstream made that
    it has not taken yet (the analysis: events the raw log committed; the retain stage:
    observations the analysis made); below a batch (`analysis.batch_size` events, a retain
    chunk) the stage waits without asking the database. `source`: the raw log's; while it
    fills the analysis reads that source alone, the others (hooks, agents' posts) once it is
    complete: asking the three empty ones after each batch (their cursors locked, the
    horizon, a read) cost ~10 ms of CPU and ~20 ms of the analysis's time, ~1.4 s and
    ~2.5 s over the 300 MB corpus. `raw_wait(seconds)`: how a stage waits while its upstream
    runs; the upstream's done event's `wait`, so that the stage goes on the moment the
    upstream ends rather than at its next poll (the retain stage after the analysis: the
    end of every first import)."""
    config = config or config_get()
    tally = StageTally()
    # The retain stage follows the analysis (here or in its own process): no retain task for
    # a worker (a Celery message of up to 2,000 ids per analysis batch).
    with retain_queueing_paused() if analyze else contextlib.nullcontext():
        _follow(tally, raw_done=raw_done, alive=alive, report=report, poll_seconds=poll_seconds,
                lock_timeout=lock_timeout, analyze=analyze, retain=retain, config=config,
                backlog=backlog, source=source, raw_wait=raw_wait)
    return tally


def _follow(tally: StageTally, *, raw_done: Callable[[], bool], alive: Callable[[], bool],
            report: Report, poll_seconds: float, lock_timeout: float, analyze: bool,
            retain: bool, config: DecayConfig,
            backlog: Callable[[StageTally], int] | None, source: str | None,
            raw_wait: Callable[[float], object]) -> None:
    wait_until: float | None = None  # for events an open transaction holds back, at the end
    embedded_upto = [0]  # entities created when the vectors last caught up
    settled = False  # a round found nothing to do and nothing held back: one more, then stop
    # A stage behind a running upstream takes whole batches only, so that a batch's fixed
    # cost (the cursors, the parents' lookup, each pair's tally rewritten; a retain chunk's
    # reads) is not paid for every few events, nor a round of statements every poll while
    # the raw log is read; the rest once the upstream is done.
    batch = config.analysis.batch_size if analyze else config.retain.chunk_size
    while alive():
        finished = raw_done()  # read before the round: no event can follow it
        whole = not analyze and not finished
        if not finished and backlog is not None and backlog(tally) < batch:
            # Not a batch's worth yet; the retain stage embeds what it retained meanwhile.
            if not (retain and _embed_step(tally, config, embedded_upto)):
                raw_wait(poll_seconds)
            report(tally)
            continue
        sources = [source] if source is not None and not finished else analyzed_sources()
        moved = analyze and _analyze_step(tally, sources)
        moved = (retain and _retain_step(tally, config, lock_timeout, whole_chunks=whole)) or moved
        settled = settled and not moved
        report(tally)
        if not moved:
            if finished:
                if wait_until is None:
                    wait_until = time.monotonic() + config.analysis.horizon_wait_seconds
                held = analyze and _held_back()
                if not held and not settled:
                    # Nothing waits now; but a transaction that held events back may have
                    # committed between the round and this check: one more round first.
                    settled = True
                    continue
                if not held or time.monotonic() >= wait_until:
                    tally.held_back = int(held)  # `cortex analyze` reads them once it ends
                    if retain:
                        _embed_rest(tally, config)
                        report(tally)
                    break
            (time.sleep if finished else raw_wait)(poll_seconds)


def _held_back() -> bool:
    """Committed events no analyzer could read yet: behind a transaction still open in the
    database (a worker's, a session's), which the stages wait for before they stop."""
    return any(analysis_held_back(source=source) for source in analyzed_sources())


def first_import_waiting() -> bool:
    """Whether a stage has anything to do: an event some analyzer has not read (the retain
    horizon's own question), a pending observation, a retain attempt left behind, or a
    vector or a dedup still to compute. A few
    indexed reads without a lock or a write: a run that read nothing new asks this before a
    round of the stages (each source's cursors locked and created, the retain lock, the
    order keys, the pending rows: ~45 statements)."""
    return consolidation_waiting()
