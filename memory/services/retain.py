"""The Retain Job (docs/retain.md): pending Observations become graph state.

Determinism: observations are retained one after the other, under a PostgreSQL advisory
lock, in their canonical order (`Observation.order_key`: the commit position of their
latest raw event, then their dedup key; see memory.retain.horizon), and only below the
horizon past which an earlier observation could still appear. Two workers on overlapping
batches therefore produce the graph one would, and a replay of the raw log the graph the
incremental path built. Reinforcement happens at the observation's timestamp, never the
wall clock.

Reliability: PostgreSQL is the truth. Each chunk's effects commit with the observations'
status change; an observation retained twice changes nothing (it is no longer pending).
Attempts are counted for each chunk tried: a `RetainAttempt` row naming its observations
is committed before the try and deleted by the chunk's transaction, which counts the
attempt on the rows it writes anyway; one left behind (the worker died) counts the attempt
at the next run, and an error counts it at once. After a crash or an error the chunk's
observations are retried one by one, and one that reaches `max_attempts` is marked failed
with its error. The sweeper re-queues pending observations whose task was lost.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import DatabaseError, InterfaceError, OperationalError, connection, transaction
from django.db.models import F

from memory import clock
from memory.collector import collector_paused
from memory.config import DecayConfig, config_get
from memory.models import Observation, ObservationStatus
from memory.models.observations import RetainAttempt
from memory.queueing import task_enqueue
from memory.retain.horizon import order_key_sql, retain_horizon
from memory.services.embeddings import embedding_passes_run
from memory.services.locks import LOCK_TIMEOUT_SECONDS, retain_lock
from memory.services.retain_chunk import ChunkReport, chunk_retain, chunk_views_lock
from memory.services.sql import commit_unwaited

logger = logging.getLogger(__name__)

GAVE_UP = "gave up after {n} attempts: {error}"
WORKER_LOST = "the worker stopped while retaining it"

_ORDER_KEYS = (
    "UPDATE memory_observation AS o SET order_key = "
    + order_key_sql(event_ids="o.event_ids", timestamp="o.timestamp", dedup_key="o.dedup_key")
    + " WHERE o.status = 'pending' AND o.order_key = ''"
)


@dataclass
class RetainReport:
    processed: int = 0
    chunks: ChunkReport = field(default_factory=ChunkReport)
    gave_up: int = 0
    more: bool = False

    def as_dict(self) -> dict[str, object]:
        return {"processed": self.processed, "statuses": dict(self.chunks.statuses),
                "routes": dict(self.chunks.routes), "entities_created": self.chunks.created,
                "conflicts": self.chunks.conflicts, "gave_up": self.gave_up, "more": self.more}


def retain_order_assign() -> int:
    """Give pending observations without one their canonical order key."""
    with connection.cursor() as cursor:
        cursor.execute(_ORDER_KEYS)
        return int(cursor.rowcount)


@dataclass(frozen=True)
class Pending:
    """What the loop reads of a pending observation (rows, not models: a thousand a chunk)."""

    pk: str
    attempts: int
    error: str


def _pending(*, upto: str | None, horizon: str | None, limit: int) -> list[Pending]:
    queryset = Observation.objects.filter(status=ObservationStatus.PENDING).exclude(order_key="")
    if upto is not None:
        queryset = queryset.filter(order_key__lte=upto)
    if horizon is not None:
        queryset = queryset.filter(order_key__lt=horizon)
    rows = queryset.order_by("order_key").values_list("id", "attempts", "error")[:limit]
    return [Pending(*row) for row in rows]


def _give_up(observation: Pending) -> None:
    error = GAVE_UP.format(n=observation.attempts, error=observation.error or WORKER_LOST)
    Observation.objects.filter(pk=observation.pk, status=ObservationStatus.PENDING).update(
        status=ObservationStatus.FAILED, error=error[:4000])


def _next_chunk(batch: Sequence[Pending], size: int) -> list[Pending]:
    """A chunk of never-tried observations; one tried before (its chunk crashed or failed)
    is retried alone, so that a poison observation is found and only it fails."""
    if batch[0].attempts:
        return [batch[0]]
    chunk: list[Pending] = []
    for observation in batch[:size]:
        if observation.attempts:
            break
        chunk.append(observation)
    return chunk


def attempts_settle() -> int:
    """Count the attempt of the chunks a worker left behind (it died trying them); the
    caller holds the retain lock, so no chunk named here is still being tried."""
    left = list(RetainAttempt.objects.values_list("pk", "observation_ids"))
    if not left:
        return 0
    with transaction.atomic():
        Observation.objects.filter(pk__in=[i for _, ids in left for i in ids]).update(
            attempts=F("attempts") + 1)
        RetainAttempt.objects.filter(pk__in=[pk for pk, _ in left]).delete()
    return len(left)


def _attempt_begin(ids: list[str]) -> RetainAttempt:
    """The row naming the chunk about to be tried, committed without waiting for the WAL to
    reach the disk: only a crash of PostgreSQL itself could lose it, and that crash also
    loses the chunk's uncommitted work (the chunk is then tried again as if for the first
    time). A worker that dies loses nothing: the server has the row. Inside a caller's
    transaction (which would commit the chunk's work with it) it is a plain insert."""
    if connection.in_atomic_block:
        return RetainAttempt.objects.create(observation_ids=ids)
    with transaction.atomic():
        commit_unwaited()
        return RetainAttempt.objects.create(observation_ids=ids)


def _key_checks_by_index() -> None:
    """The chunk's foreign keys are checked at its commit: a primary-key lookup for each key
    of each row written (some 9,000 a chunk of 1,000: mentions and evidence name an entity or
    a relation and an observation). PostgreSQL plans each check once per connection and keeps
    the plan: planned on a graph still nearly empty (a first import's first chunks), a
    sequential scan is the cheapest, and it stays the plan as the entities and relations grow
    (each check then reads the whole table). Sequential scans off until the commit (SET
    LOCAL) make the plans, whenever they are made, the primary key's index."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")


def _try_chunk(chunk: Sequence[Pending], config: DecayConfig) -> ChunkReport | None:
    ids = [o.pk for o in chunk]
    attempt = _attempt_begin(ids)
    try:
        with transaction.atomic(), collector_paused():
            report = chunk_retain(chunk_views_lock(ids), config=config, attempted=True)
            RetainAttempt.objects.filter(pk=attempt.pk).delete()
            _key_checks_by_index()
            return report
    except (OperationalError, InterfaceError):
        raise  # the database is away: retry the task, do not blame the observations
    except DatabaseError as exc:
        logger.exception("retain: a chunk of %d observations failed", len(ids))
        error = f"{type(exc).__name__}: {exc}"[:4000]
        with transaction.atomic():
            Observation.objects.filter(pk__in=ids).update(attempts=F("attempts") + 1)
            Observation.objects.filter(pk__in=ids, status=ObservationStatus.PENDING).update(
                error=error)
            RetainAttempt.objects.filter(pk=attempt.pk).delete()
        return None


def retain_run(*, upto: str | None = None, limit: int | None = None,
               config: DecayConfig | None = None, whole_chunks: bool = False) -> RetainReport:
    """Retain pending observations below the horizon (and at most `upto`), in canonical
    order, at most `limit` of them. `whole_chunks`: only chunks of `retain.chunk_size`, the
    rest left for a later run (a caller that knows more will follow: the first import's
    retain stage while the analysis runs, which would otherwise retain each analysis
    batch's few hundred observations as a chunk of their own, paying a chunk's statements
    for each). The caller holds `retain_lock()`."""
    config = config or config_get()
    limit = limit if limit is not None else config.retain.batch_size
    report = RetainReport()
    attempts_settle()
    retain_order_assign()
    horizon = retain_horizon()
    while report.processed < limit:
        batch = _pending(upto=upto, horizon=horizon,
                         limit=min(limit - report.processed, config.retain.chunk_size))
        if not batch or (whole_chunks and len(batch) < config.retain.chunk_size
                         and not batch[0].attempts):
            report.more = bool(batch)
            return report
        if batch[0].attempts >= config.retain.max_attempts:
            _give_up(batch[0])
            report.gave_up += 1
            continue
        chunk = _next_chunk(batch, config.retain.chunk_size)
        done = _try_chunk(chunk, config)
        if done is not None:
            report.chunks.add(done)
            report.processed += len(chunk)
    report.more = bool(_pending(upto=upto, horizon=horizon, limit=1))
    return report


def retain_batch_run(*, ids: Sequence[str], config: DecayConfig | None = None,
                     lock_timeout: float = LOCK_TIMEOUT_SECONDS) -> RetainReport:
    """What a task does: retain these observations and every pending one before them.
    Raises RetainBusy when the lock stays taken."""
    config = config or config_get()
    with retain_lock(timeout=lock_timeout):
        retain_order_assign()
        keys = Observation.objects.filter(pk__in=list(ids), status=ObservationStatus.PENDING)
        horizon = retain_horizon()
        if horizon is not None:
            keys = keys.filter(order_key__lt=horizon)
        upto = max(keys.values_list("order_key", flat=True), default=None)
        if upto is None:
            return RetainReport()
        report = retain_run(upto=upto, limit=config.retain.task_limit, config=config)
        report.more = bool(_pending(upto=None, horizon=horizon, limit=1))
        return report


def retain_drain(*, config: DecayConfig | None = None, embed: bool = True) -> RetainReport:
    """Retain everything pending below the horizon, then run the offline passes (embeddings
    and embedding dedup) until nothing is left: what commands and tests call."""
    config = config or config_get()
    total = RetainReport()
    with retain_lock():
        while True:
            report = retain_run(limit=config.retain.batch_size, config=config)
            total.processed += report.processed
            total.gave_up += report.gave_up
            total.chunks.add(report.chunks)
            if not report.more and not report.processed and not report.gave_up:
                break
    if embed:
        embedding_passes_run(config=config)
    return total


_QUEUEING: ContextVar[bool] = ContextVar("retain_queueing", default=True)


@contextmanager
def retain_queueing_paused() -> Iterator[None]:
    """No retain task queued for the observations stored meanwhile: for a caller that
    retains them itself (the first import's retain stage follows its analysis). Pending
    observations stay findable: a run left unfinished is resumed by the next one, or by the
    sweeper (`retain_sweep`) under `cortex up`."""
    token = _QUEUEING.set(False)
    try:
        yield
    finally:
        _QUEUEING.reset(token)


def retain_enqueue(*, observation_ids: Sequence[str]) -> None:
    """Queue the retain task for these observations once the transaction commits (a broker
    that is away is logged: the sweeper finds pending observations in the database)."""
    if not observation_ids or not _QUEUEING.get():
        return
    size = config_get().retain.batch_size
    for start in range(0, len(observation_ids), size):
        task_enqueue("memory.retain", ids=list(observation_ids[start:start + size]))


def retain_pending_ids(*, limit: int, older_than: timedelta | None = None) -> list[str]:
    """The first pending observations (canonical order) a task may retain now."""
    retain_order_assign()
    queryset = Observation.objects.filter(status=ObservationStatus.PENDING).exclude(order_key="")
    if older_than is not None:
        queryset = queryset.filter(recorded_at__lte=clock.now() - older_than)
    horizon = retain_horizon()
    if horizon is not None:
        queryset = queryset.filter(order_key__lt=horizon)
    return list(queryset.order_by("order_key").values_list("id", flat=True)[:limit])


def retain_continue(*, config: DecayConfig | None = None) -> int:
    """Queue the next pending observations (a task that left more behind); returns how many."""
    config = config or config_get()
    ids = retain_pending_ids(limit=config.retain.batch_size)
    retain_enqueue(observation_ids=ids)
    return len(ids)


def retain_sweep(*, config: DecayConfig | None = None) -> int:
    """Re-queue the oldest pending observations (their task was lost); returns how many."""
    config = config or config_get()
    ids = retain_pending_ids(limit=config.retain.batch_size,
                             older_than=timedelta(seconds=config.retain.sweep_after_seconds))
    retain_enqueue(observation_ids=ids)
    return len(ids)


def retain_retry(*, statuses: Sequence[str] = (ObservationStatus.FAILED,
                                               ObservationStatus.UNHANDLED)) -> int:
    """Give failed (or unhandled) observations another chance: pending again, attempts
    reset, queued. For after a fix or a new handler; returns how many."""
    queryset = Observation.objects.filter(status__in=list(statuses))
    ids = list(queryset.values_list("id", flat=True))
    Observation.objects.filter(pk__in=ids).update(
        status=ObservationStatus.PENDING, attempts=0, error="", schema_fit=None)
    retain_enqueue(observation_ids=ids)
    return len(ids)
