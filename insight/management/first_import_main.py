"""The entry point of the first import's stages (insight/management/first_import.py). The
importer forks their process when its command starts, before any thread or connection (it
closes its own first), so the stages start with the importer's interpreter, Django and apps
already loaded: a spawned process paid an interpreter's and Django's start (0.5-0.7 s of CPU
before its first batch). The analysis runs in that process; the retain stage in a child it
forks in turn (before any connection or thread of its own)."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import os
import signal
import sys
import traceback
from collections.abc import Callable
from multiprocessing.sharedctypes import Synchronized, SynchronizedArray
from multiprocessing.synchronize import Event
from pathlib import Path
from types import FrameType
from typing import NoReturn


class _Child:
    """The forked retain stage, seen from the analysis's process: its exit code once it
    ended (None while it runs), read without waiting."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.code: int | None = None

    def exitcode(self, *, wait: bool = False) -> int | None:
        if self.code is None:
            with contextlib.suppress(ChildProcessError):  # reaped meanwhile (a signal's stop)
                pid, status = os.waitpid(self.pid, 0 if wait else os.WNOHANG)
                if pid:
                    self.code = os.waitstatus_to_exitcode(status)
        return self.code

    def stop(self) -> None:
        if self.code is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)
            self.exitcode(wait=True)


def stages_spawned(database_url: str, redis_url: str, go: Event, cancelled: Synchronized[int],
                   counts: list[SynchronizedArray[int]], done: list[Event], parent: int,
                   poll_seconds: float, lock_timeout: float, stored: Synchronized[int],
                   source: str | None = None) -> None:
    """`stages_main` in a spawned interpreter (an importer that cannot fork: see
    `fork_safe`): Django set up first, on the importer's database and broker."""
    os.environ["DATABASE_URL"], os.environ["REDIS_URL"] = database_url, redis_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    import django

    gc.disable()  # as the `cortex` script (cortex_site/cli.py): no collection while Django loads
    django.setup()
    gc.enable()
    stages_main(go, cancelled, counts, done, parent, poll_seconds, lock_timeout, stored,
                source=source)


def fork_safe() -> bool:
    """Whether this process may fork the stages: no thread but this one, and no OpenMP
    runtime loaded (the embedder's: its worker threads are not in a forked child, whose
    first parallel region then waits for them forever). A `cortex ingest` has neither when
    it starts; a process that embedded before (a test's) spawns them instead."""
    import threading

    if threading.active_count() > 1:
        return False
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return False
    return not any(name in maps for name in ("libgomp", "libomp", "libiomp"))


def stages_main(go: Event, cancelled: Synchronized[int], counts: list[SynchronizedArray[int]],
                done: list[Event], parent: int, poll_seconds: float, lock_timeout: float,
                stored: Synchronized[int], source: str | None = None) -> None:
    """In the importer's forked child: waits until `go` is set (the raw log has something
    new: the stages start) or the importer is gone; returns at once when `cancelled` is set
    with it (nothing new to read: the importer runs what waits itself). Then the analysis
    follows the raw log of `source` (`stored`: the events it committed so far) and sets
    `done[1]` once it has nothing left after the raw log was complete (`done[0]`); the
    retain stage follows the analysis (its counts), runs a first import's sleep cycle once
    nothing is left pending, and sets `done[2]`. Each stage's counts go to `counts[0]` and
    `counts[1]`. Exits with the retain stage's code when it failed; the retain stage stops
    when this process is gone, and this process stops it when the importer is."""
    # Ctrl-C reaches the whole process group: the importer stops this process (SIGTERM).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    while not go.wait(poll_seconds):
        if os.getppid() != parent:
            return
    if cancelled.value or os.getppid() != parent:
        return
    from django.db import connections

    connections.close_all()  # the importer closed its own before the fork: none is open
    gc.freeze()  # what the importer made since its start: left alone by the collector
    sys.stdout.flush()
    sys.stderr.flush()
    analysis = os.getpid()
    pid = os.fork()
    if pid == 0:
        _retain_child(counts, done, analysis, poll_seconds, lock_timeout)
    child = _Child(pid)

    def terminated(signum: int, frame: FrameType | None) -> None:
        child.stop()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, terminated)
    try:
        _stage(counts[0], done[0], done[1], lambda: os.getppid() == parent and not child.exitcode(),
               stage="analyze", poll_seconds=poll_seconds, lock_timeout=lock_timeout,
               backlog=lambda tally: int(stored.value) - tally.events_analyzed, source=source)
        while child.exitcode() is None and os.getppid() == parent:
            done[2].wait(poll_seconds)
    finally:
        child.stop()  # the importer is gone, or this stage failed: what it committed stays
    if child.exitcode():
        sys.exit(child.exitcode())


def _retain_child(counts: list[SynchronizedArray[int]], done: list[Event], analysis: int,
                  poll_seconds: float, lock_timeout: float) -> NoReturn:
    """The retain stage, in the forked child; then, once nothing is left pending, the sleep
    cycle of a first import (insight/management/first_import_sleep.py)."""
    code = 1
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        from insight.services.first_import import StageTally

        created = [f.name for f in dataclasses.fields(StageTally)].index("observations_created")
        _stage(counts[1], done[1], None, lambda: os.getppid() == analysis, stage="retain",
               poll_seconds=poll_seconds, lock_timeout=lock_timeout,
               backlog=lambda tally: int(counts[0][created]) - tally.retained)
        if os.getppid() == analysis:  # nothing is left pending: the first sleep cycle
            from insight.management.first_import_sleep import first_sleep

            first_sleep()
            done[2].set()
        code = 0
    except BaseException:  # noqa: BLE001 - said on stderr, then the exit code tells the importer
        traceback.print_exc()
    finally:
        from django.db import connections

        connections.close_all()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)  # not the analysis's exit handlers: they are its process's


def _stage(counts: SynchronizedArray[int], upstream_done: Event, done: Event | None,
           alive: Callable[[], bool], *, stage: str, poll_seconds: float, lock_timeout: float,
           backlog: Callable[..., int], source: str | None = None) -> None:
    from insight.services.first_import import StageTally, first_import_follow

    names = [f.name for f in dataclasses.fields(StageTally)]

    def report(tally: StageTally) -> None:
        counts[:] = [getattr(tally, name) for name in names]

    first_import_follow(raw_done=upstream_done.is_set, alive=alive, report=report,
                        poll_seconds=poll_seconds, lock_timeout=lock_timeout,
                        analyze=stage == "analyze", retain=stage == "retain", source=source,
                        backlog=backlog, raw_wait=upstream_done.wait)
    if done is not None and alive():
        done.set()
