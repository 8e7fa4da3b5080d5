"""The sink's writing thread, and the collector settings producers run under."""

from __future__ import annotations

import gc
import queue
import threading
from collections.abc import Callable, Hashable
from typing import Any

from django.db import connection

from memory.services.events import PreparedEvents

Marks = dict[Hashable, Any]
Batch = tuple[list[PreparedEvents], Marks]
Write = Callable[[list[PreparedEvents], Marks], None]

# Batches prepared and waiting while one is written: slack so that neither side waits for the
# other when one batch is slower to read or to write than the next.
QUEUED_BATCHES = 2
# When the writer falls behind, the batches waiting are written in one transaction (up to
# this many): one commit and one save of the read positions for all of them.
MERGED_BATCHES = 4


class BatchWriter:
    """Writes batches in order in a thread with its own database connection; the first error
    stops the writing and is raised in the producer's thread (at the next hand-over, or at
    close)."""

    def __init__(self, write: Write) -> None:
        self._write = write
        self._batches: queue.Queue[Batch | None] = queue.Queue(maxsize=QUEUED_BATCHES)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="event-sink", daemon=True)
        self._thread.start()

    def submit(self, batch: Batch) -> None:
        if self._error is not None:
            self.close()
        self._batches.put(batch)  # waits while QUEUED_BATCHES wait already

    def close(self) -> None:
        self._batches.put(None)
        self._thread.join()
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        configured = False
        try:
            while (batch := self._batches.get()) is not None:
                batches, marks, done = self._merged(batch)
                try:
                    if self._error is None:
                        if not configured:
                            configured = _commit_without_waiting_for_the_disk()
                        self._write(batches, marks)
                except BaseException as error:  # handed to the producer's thread
                    self._error = error
                if done:
                    break
        finally:
            connection.close()

    def _merged(self, batch: Batch) -> tuple[list[PreparedEvents], Marks, bool]:
        """This batch and those waiting behind it, up to MERGED_BATCHES; True at the end."""
        batches, marks = batch
        while len(batches) < MERGED_BATCHES:
            try:
                more = self._batches.get_nowait()
            except queue.Empty:
                break
            if more is None:
                return batches, marks, True
            batches, marks = batches + more[0], {**marks, **more[1]}
        return batches, marks, False


def _commit_without_waiting_for_the_disk() -> bool:
    """For this connection (the writer's own): a crash may lose the last batches committed (a
    fraction of a second of them), never part of one, and each batch's read positions are in
    its transaction, so the next run reads them again. Not waiting for the WAL to reach the
    disk at each commit keeps the writer busy."""
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit = off")
    return True


class RelaxedGC:
    """While producers run: the objects alive before (modules, settings, caches) are left out
    of the collector's scans, and it runs ~15x less often. Events are acyclic (JSON) and freed
    by reference counting; with the default thresholds the collections kept rescanning the
    batches in flight (~20% of the producer's time). Nested and concurrent sinks share it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._thresholds = gc.get_threshold()
        self._froze = False

    def __enter__(self) -> None:
        with self._lock:
            if self._users == 0:
                self._thresholds = gc.get_threshold()
                self._froze = gc.get_freeze_count() == 0  # someone else's freeze stays theirs
                if self._froze:
                    gc.freeze()
                gc.set_threshold(10_000, *self._thresholds[1:])
            self._users += 1

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0:
                gc.set_threshold(*self._thresholds)
                if self._froze:
                    gc.unfreeze()


RELAXED_GC = RelaxedGC()
