"""The analysis and retain stages of `cortex ingest`, each in a process of its own, beside
the raw ingestion (the GIL would serialize them in threads), on the same database: the
analysis in a process the importer forks when its command starts (before any thread or
connection: the interpreter, Django and the apps come loaded), the retain stage in a child
that process forks in turn (insight/management/first_import_main.py); counts come back
through shared memory for the progress display.

The followers start once there is something new to read (or the raw log has new events):
a run that has nothing to read (an unchanged corpus) lets their process exit and runs the
stages in its own process instead, where they find what an interrupted run left, or
nothing: one question first (`first_import_waiting`: a few indexed reads, and
`first_sleep_wanted`: two), the stages' round only when it finds something. The stages end
with the sleep cycle of a graph no sleep cycle has consolidated yet
(insight/management/first_import_sleep.py), in the retain stage's process. The follower
stops when the importer is gone (a SIGKILL leaves committed state only: the next run
resumes), and exits non-zero when a stage fails."""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

from django.db import connection, connections

from insight.management.first_import_main import fork_safe, stages_main, stages_spawned
from insight.services.first_import import StageTally, first_import_follow, first_import_waiting
from memory.config import config_get
from memory.services.sql import connection_url

T = TypeVar("T")

POLL_SECONDS = 0.2  # how often the follower looks for new events while it waits
LOCK_TIMEOUT_SECONDS = 5.0  # a worker holding the retain lock: wait this long, then analyze
FIELDS = [f.name for f in fields(StageTally)]
_FORK = multiprocessing.get_context("fork")
_SPAWN = multiprocessing.get_context("spawn")


class Stages:
    """`events_stored(count)` from any thread once a batch committed `count` events (0: new
    bytes to read); `poll()` from the reading thread starts the follower then; `finish(tick)`
    once the raw log is complete. `source`: the raw log's, which the analysis follows (the
    other sources once it is complete).
    The follower's process is forked when this is made (the command's start: no thread yet,
    the importer's connection closed first; spawned in a process that cannot fork, see
    `fork_safe`) and waits; `poll()` lets it go, `finish()` lets it exit when nothing was
    new.
    Inside a transaction nothing runs: the stages could not see the events before it
    commits (they are left to `cortex analyze` / `cortex retain` or the workers)."""

    def __init__(self, *, redis_url: str, source: str | None = None) -> None:
        self.source = source
        self.enabled = not connection.in_atomic_block
        self.follower: Follower | None = None
        self._standby = Follower(redis_url=redis_url, source=source) if self.enabled else None
        self._wanted = False
        self._stored = 0  # events the raw log committed so far (the writer's thread adds)
        self._inline = StageTally()

    def events_stored(self, count: int) -> None:
        self._wanted = True
        self._stored += count
        if self._standby is not None:  # the total, not an increment: a count missed heals
            self._standby.stored.value = self._stored

    def poll(self) -> None:
        if self._standby is not None and self._wanted and self.follower is None:
            self.follower = self._standby
            self.follower.go()

    def tally(self) -> StageTally:
        return self.follower.tally() if self.follower is not None else self._inline

    def finish(self, tick: Callable[[], Any]) -> int:
        """The exit code of the stages (0: nothing is left pending)."""
        if not self.enabled:
            return 0
        if self.follower is not None:
            self.follower.raw_done()
            return self.follower.wait(tick)
        if self._standby is not None:
            self._standby.cancel()
        from insight.management.first_import_sleep import first_sleep

        if first_import_waiting():  # else an unchanged corpus, nothing left by a run before
            self._inline = first_import_follow(
                raw_done=lambda: True, alive=lambda: True, report=lambda _: tick(),
                poll_seconds=POLL_SECONDS, lock_timeout=LOCK_TIMEOUT_SECONDS)
        first_sleep()  # a first import's, when none finished (interrupted before it did)
        return 0

    def stop(self) -> None:
        if self._standby is not None:
            self._standby.stop()


def raw_read(read: Callable[[], T], *, stages: Stages | None) -> T:
    """`read()`, the raw read; with stages following it, in a thread of its own running
    `analysis.raw_read_nice` nicer than they do: the import ends when the analysis does, the
    longer chain, so it gets the cores first, and the read takes what they leave. On Linux a
    thread's nice value is its own, and the threads it starts (the batch writer) inherit it:
    the caller's thread keeps its priority (a command called in-process, a test)."""
    nice = config_get().analysis.raw_read_nice
    if stages is None or not stages.enabled or not nice or sys.platform != "linux":
        return read()
    results: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        os.nice(nice)
        try:
            results.append(read())
        except BaseException as error:  # noqa: BLE001 - raised again in the caller's thread
            errors.append(error)
        finally:
            connections.close_all()  # this thread's

    # A daemon: interrupted (Ctrl-C), the command exits without waiting for the read, and
    # what it had not committed is rolled back, as after a SIGKILL.
    thread = threading.Thread(target=run, name="cortex-raw-read", daemon=True)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return results[0]


class Follower:
    """The analysis following the raw log and the retain stage following the analysis (on 2
    cores they overlap once the raw log is read), in one process forked from the importer
    and the child it forks (`stages_main`), waiting for `go()` (or `cancel()`). Each stage
    waits, while its upstream runs, for a batch's worth of work without asking the
    database: the analysis reads how many events the raw log committed (`stored`, set by
    the importer), the retain stage the analysis's counts. `raw_done()` once the raw log is
    complete; `wait(tick)` calls `tick` while they finish."""

    STAGES = ("analyze", "retain")

    def __init__(self, *, redis_url: str = "", source: str | None = None) -> None:
        fork = fork_safe()
        context = _FORK if fork else _SPAWN
        self.counts = [context.Array("q", len(FIELDS), lock=False) for _ in self.STAGES]
        self.stored = context.Value("q", 0, lock=False)
        self._go, self._cancelled = context.Event(), context.Value("q", 0, lock=False)
        self._done = [context.Event() for _ in range(len(self.STAGES) + 1)]  # raw, analyzed, all
        args: tuple[Any, ...] = (self._go, self._cancelled, self.counts, self._done,
                                 os.getpid(), POLL_SECONDS, LOCK_TIMEOUT_SECONDS, self.stored)
        if fork:
            # The child must not share a connection (nor close the importer's): none is open.
            connections.close_all()
        else:  # a process that cannot fork (fork_safe): a fresh interpreter sets Django up
            args = (connection_url(), redis_url, *args)
        self.processes = [
            context.Process(target=stages_main if fork else stages_spawned,
                            name="cortex-first-import", daemon=True, args=args,
                            kwargs={"source": source})
        ]
        for process in self.processes:
            process.start()

    def go(self) -> None:
        self._go.set()

    def cancel(self) -> None:
        """Nothing new was read: the process exits (the importer runs what waits)."""
        self._cancelled.value = 1
        self._go.set()
        for process in self.processes:
            process.join(5)

    def tally(self) -> StageTally:
        sums = [sum(values) for values in zip(*(list(c) for c in self.counts), strict=True)]
        return StageTally(**dict(zip(FIELDS, sums, strict=True)))

    def raw_done(self) -> None:
        self._done[0].set()

    def wait(self, tick: Callable[[], Any], *, interval: float = 0.2) -> int:
        """0 once both stages finished; else the first failure's exit code (the other stage
        is stopped: what it committed stays)."""
        while any(process.is_alive() for process in self.processes):
            for process in self.processes:
                if not process.is_alive() and process.exitcode:
                    self.stop()
                    return int(process.exitcode)
            self.processes[-1].join(interval)
            tick()
        return max(int(process.exitcode or 0) for process in self.processes)

    def stop(self) -> None:
        for process in self.processes:
            if process.is_alive():
                process.terminate()
                process.join(5)
