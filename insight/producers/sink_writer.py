"""The sink's writing thread, and the collector settings producers run under."""

from __future__ import annotations

import gc
import queue
import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection, transaction

from memory.services.events import EventAppendResult, PreparedEvents

Marks = dict[Hashable, Any]
Store = Callable[[list[PreparedEvents]], list[EventAppendResult]]
SaveMarks = Callable[[Marks], None]
Tally = Callable[[list[EventAppendResult]], None]
Item = tuple[int, list[PreparedEvents], Marks]  # hand-over order, batches, marks

# Writing threads, each with its connection: PostgreSQL parses, compresses and indexes one
# batch while it does the next, on the other core (one backend was busy all the time while
# the producer waited for it).
WRITERS = 2
# Batches prepared and waiting while the writers write: slack so that neither side waits for
# the other when one batch is slower to read or to write than the next.
QUEUED_BATCHES = 2


class CommitOrder:
    """What the writers share. Each batch takes its transaction id in hand-over order (readers
    read in (txid, id) order below the commit horizon, so events keep the order of the files
    they came from, whichever transaction commits first); read positions are saved only in a
    transaction behind which every batch handed over before is committed (a crash never
    leaves a position ahead of the events it covers): a batch that commits ahead of an
    earlier one leaves its marks to that one."""

    def __init__(self) -> None:
        self._turn = threading.Condition()
        self._next_turn = 0
        self.commit_lock = threading.Lock()  # held from the marks' choice to the commit
        self._committed: set[int] = set()
        self._prefix = 0  # every batch before this one is committed
        self._pending: dict[int, Marks] = {}
        self._claimed: int | None = None  # the prefix once the batch that saves marks commits

    @contextmanager
    def turn(self, seq: int) -> Iterator[None]:
        """Waits until the batches handed over before have taken their transaction ids."""
        with self._turn:
            self._turn.wait_for(lambda: self._next_turn >= seq)
        try:
            yield
        finally:
            self.pass_turn(seq)

    def pass_turn(self, seq: int) -> None:
        """The batches after this one may take their transaction ids (it took its own, or
        never will)."""
        with self._turn:
            self._next_turn = max(self._next_turn, seq + 1)
            self._turn.notify_all()

    def marks_due(self, seq: int, marks: Marks) -> Marks:
        """Under commit_lock: the marks this batch's transaction saves (its own and those of the
        batches after it that committed before it), or none while an earlier one is still
        being written."""
        self._pending[seq] = marks
        self._claimed = None
        if self._prefix != seq:
            return {}
        due: Marks = {}
        end = seq
        while end in self._pending and (end == seq or end in self._committed):
            due.update(self._pending.pop(end))
            end += 1
        self._claimed = end
        return due

    def committed(self, seq: int) -> None:
        """Under commit_lock, once the batch's transaction committed."""
        self._committed.add(seq)
        if self._claimed is not None:
            self._prefix, self._claimed = self._claimed, None
            self._committed = {s for s in self._committed if s >= self._prefix}


class BatchWriter:
    """Writes batches in WRITERS threads, each with its own database connection, in the order
    CommitOrder keeps; the first error stops the writing and is raised in the producer's
    thread (at the next hand-over, or at close)."""

    def __init__(self, *, store: Store, save_marks: SaveMarks, tally: Tally,
                 writers: int | None = None) -> None:
        writers = writers or WRITERS  # read here: a benchmark compares with one writer
        self._store, self._save_marks, self._tally = store, save_marks, tally
        self._order = CommitOrder()
        self._items: queue.Queue[Item | None] = queue.Queue(maxsize=QUEUED_BATCHES)
        self._error: BaseException | None = None
        self._seq = 0
        self._threads = [threading.Thread(target=self._run, name=f"event-sink-{index}",
                                          daemon=True) for index in range(writers)]
        for thread in self._threads:
            thread.start()

    def submit(self, batches: list[PreparedEvents], marks: Marks) -> None:
        if self._error is not None:
            self.close()
        self._items.put((self._seq, batches, marks))  # waits while QUEUED_BATCHES wait already
        self._seq += 1

    def close(self) -> None:
        for _ in self._threads:
            self._items.put(None)
        for thread in self._threads:
            thread.join()
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        configured = False
        try:
            while (item := self._items.get()) is not None:
                seq, batches, marks = item
                try:
                    if self._error is None:
                        if not configured:
                            configured = _commit_without_waiting_for_the_disk()
                        self._write(seq, batches, marks)
                except _Stopped:
                    pass
                except BaseException as error:  # handed to the producer's thread
                    self._error = self._error or error
                finally:
                    self._order.pass_turn(seq)  # whatever happened: the others go on
        finally:
            connection.close()

    def _write(self, seq: int, batches: list[PreparedEvents], marks: Marks) -> None:
        results: list[EventAppendResult] = []
        order = self._order
        locked = False
        try:
            with transaction.atomic():
                with order.turn(seq), connection.cursor() as cursor:
                    cursor.execute("SELECT pg_current_xact_id()")
                results = self._store(batches)
                order.commit_lock.acquire()
                locked = True
                if self._error is not None:
                    raise _Stopped  # another batch failed: roll this one back, save nothing
                due = order.marks_due(seq, marks)
                if due:
                    self._save_marks(due)
            order.committed(seq)
        except BaseException as error:
            if not isinstance(error, _Stopped):  # known before the lock goes
                self._error = self._error or error
            raise
        finally:
            if locked:
                order.commit_lock.release()
        self._tally(results)


class _Stopped(Exception):
    """A writer's batch given up because another one failed."""


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
