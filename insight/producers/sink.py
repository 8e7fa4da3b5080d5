"""Batches producers' events into Layer 1, committing each batch with the read position.

A batch (at most CORTEX_MAX_BATCH events, and a bounded number of bytes so memory stays
flat when lines are huge) and the marks added since the previous batch (where each file
or repository was read up to) are written in one transaction: a crash never leaves a
position ahead of the events it covers, and idempotency absorbs the re-read behind it.

Batches are checked and sanitized in the producer's thread (event_batch_prepare). Outside a
transaction they are written by a thread of their own while the producer reads and prepares
the next one: the database's work (the thread waits on it with the GIL released) overlaps the
parsing. One batch is written while the next is prepared, no more, so memory stays bounded.
Inside a caller's transaction they are written in it, in the caller's thread.
"""

from __future__ import annotations

import copy
import logging
import queue
import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from insight.producers.base import Event, IngestSummary, NoProgress, Progress
from memory.services.events import (
    EventAppendResult,
    EventsRejected,
    PreparedEvents,
    event_append_prepared,
    event_batch_prepare,
)

logger = logging.getLogger(__name__)

MAX_PENDING_BYTES = 8 * 1024 * 1024

Batch = tuple[list[PreparedEvents], list[Any]]


class EventSink:
    def __init__(
        self,
        *,
        source: str,
        summary: IngestSummary,
        commit_marks: Callable[[list[Any]], None] | None = None,
        progress: Progress | None = None,
        batch_size: int | None = None,
        pipelined: bool = True,
    ) -> None:
        self.source, self.summary = source, summary
        self.commit_marks = commit_marks
        self.progress = progress or NoProgress()
        self.batch_size = min(batch_size or settings.CORTEX_MAX_BATCH, settings.CORTEX_MAX_BATCH)
        self.pipelined = pipelined
        self.pending: list[Event] = []
        self.pending_bytes = 0
        self.marks: dict[Hashable, Any] = {}
        self._writer: _BatchWriter | None = None

    def mark(self, key: Hashable, value: Any) -> None:
        """Committed with the next batch (the latest value per key)."""
        self.marks[key] = value

    def add(self, events: Sequence[Event], *, size: int = 0) -> None:
        self.pending.extend(events)
        self.pending_bytes += size
        if len(self.pending) >= self.batch_size or self.pending_bytes >= MAX_PENDING_BYTES:
            self._hand_off()

    def flush(self) -> None:
        """Write what is pending; once this returns, everything added is stored."""
        self._hand_off()
        self.close()

    def close(self) -> None:
        """Stop the writing thread once the batch it holds is written; what is still pending
        is dropped (on an error: the marks of the batches written cover exactly them)."""
        if self._writer is not None:
            writer, self._writer = self._writer, None
            writer.close()

    def __enter__(self) -> EventSink:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _hand_off(self) -> None:
        if not self.pending and not self.marks:
            return
        events, marks = self.pending, list(self.marks.values())
        self.pending, self.pending_bytes, self.marks = [], 0, {}
        batches = [self._prepare(events[start:start + self.batch_size])
                   for start in range(0, len(events), self.batch_size)]
        if not self.pipelined or connection.in_atomic_block:
            self._write(batches, marks)
            return
        if self._writer is None:
            self._writer = _BatchWriter(self._write)
        # The producer goes on changing its marks (a file's read state): the batch gets
        # them as they are now, when they match its events.
        self._writer.submit((batches, copy.deepcopy(marks)))

    def _write(self, batches: list[PreparedEvents], marks: list[Any]) -> None:
        with transaction.atomic():
            results: list[EventAppendResult] = []
            for batch in batches:
                results += event_append_prepared(batch=batch)
            if marks and self.commit_marks is not None:
                self.commit_marks(marks)
        created = sum(1 for r in results if r.created)
        self.summary.events_stored += created
        self.summary.duplicates += len(results) - created
        self.progress.advance(events=created)

    def _prepare(self, events: list[Event]) -> PreparedEvents:
        """One batch; an event Layer 1 refuses is counted and left out, never fatal."""
        try:
            return event_batch_prepare(source=self.source, events=events)
        except EventsRejected as exc:
            bad = {int(index) for index in exc.fields if index.isdigit()}
            if not bad:
                raise
            for index in sorted(bad):  # field names only: a value might hold a secret
                logger.warning("%s event refused by Layer 1 (fields: %s)", self.source,
                               ", ".join(sorted(exc.fields[str(index)])))
            self.summary.malformed["rejected_by_layer1"] += len(bad)
            good = [event for index, event in enumerate(events) if index not in bad]
            return event_batch_prepare(source=self.source, events=good)


class _BatchWriter:
    """Writes batches in order in a thread with its own database connection. A batch is
    handed over once the one before it is written; the first error stops the writing and
    is raised in the producer's thread (at the next hand-over, or at close)."""

    def __init__(self, write: Callable[[list[PreparedEvents], list[Any]], None]) -> None:
        self._write = write
        self._batches: queue.Queue[Batch | None] = queue.Queue(maxsize=1)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="event-sink", daemon=True)
        self._thread.start()

    def submit(self, batch: Batch) -> None:
        self._batches.join()  # the previous batch is written
        if self._error is not None:
            self.close()
        self._batches.put(batch)

    def close(self) -> None:
        self._batches.put(None)
        self._thread.join()
        self._raise()

    def _raise(self) -> None:
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        try:
            while (batch := self._batches.get()) is not None:
                try:
                    if self._error is None:
                        self._write(*batch)
                except BaseException as error:  # handed to the producer's thread
                    self._error = error
                finally:
                    self._batches.task_done()
        finally:
            connection.close()
