"""Batches producers' events into Layer 1, committing each batch with the read position.

A batch (at most CORTEX_MAX_BATCH events, and a bounded number of bytes so memory stays
flat when lines are huge) and the marks added since the previous batch (where each file
or repository was read up to) are written in one transaction: a crash never leaves a
position ahead of the events it covers, and idempotency absorbs the re-read behind it.

Batches are checked and sanitized in the producer's thread (event_batch_prepare). Outside a
transaction they are written by a thread of their own (sink_writer.BatchWriter) while the
producer reads and prepares the next ones: the database's work (the thread waits on it with
the GIL released) overlaps the parsing. A few batches at most wait, so memory stays bounded.
Inside a caller's transaction they are written in it, in the caller's thread.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from insight.producers.base import Event, IngestSummary, NoProgress, Progress
from insight.producers.sink_writer import RELAXED_GC, BatchWriter, Marks, Write
from memory.errors import Invalid
from memory.services.events import (
    EventAppendResult,
    PreparedEvents,
    event_append_prepared,
    event_batch_prepare,
)

logger = logging.getLogger(__name__)

MAX_PENDING_BYTES = 8 * 1024 * 1024


class EventSink:
    """Use it as a context manager: it stops its writer on the way out."""

    def __init__(
        self,
        *,
        source: str,
        summary: IngestSummary,
        commit_marks: Callable[[list[Any]], None] | None = None,
        progress: Progress | None = None,
        batch_size: int | None = None,
        pipelined: bool = True,
        hand_over: Write | None = None,
    ) -> None:
        self.source, self.summary = source, summary
        self.commit_marks = commit_marks
        self.progress = progress or NoProgress()
        self.batch_size = min(batch_size or settings.CORTEX_MAX_BATCH, settings.CORTEX_MAX_BATCH)
        self.pipelined = pipelined
        # Set in a reader process: its prepared batches go to the importer, which writes them.
        self.hand_over = hand_over
        self.pending: list[Event] = []
        self.pending_bytes = 0
        self.marks: Marks = {}
        self._writer: BatchWriter | None = None

    def mark(self, key: Hashable, value: Any) -> None:
        """Committed with the next batch (the latest value per key)."""
        self.marks[key] = value

    def add(self, events: Sequence[Event], *, size: int = 0) -> None:
        self.pending.extend(events)
        self.pending_bytes += size
        if len(self.pending) >= self.batch_size or self.pending_bytes >= MAX_PENDING_BYTES:
            self._hand_off()

    def add_prepared(self, batches: list[PreparedEvents], marks: Marks) -> None:
        """Batches another process prepared (claude_code_readers), written as this sink's
        own, in order, each with the marks it came with."""
        self._hand_off()
        self._submit(batches, marks)

    def flush(self) -> None:
        """Write what is pending; once this returns, everything added is stored."""
        self._hand_off()
        self.close()

    def close(self) -> None:
        """Stop the writing thread once the batches it holds are written; what is still
        pending is dropped (on an error: the marks of the batches written cover exactly
        them)."""
        if self._writer is not None:
            writer, self._writer = self._writer, None
            writer.close()

    def __enter__(self) -> EventSink:
        RELAXED_GC.__enter__()
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            self.close()
        finally:
            RELAXED_GC.__exit__()

    def _hand_off(self) -> None:
        if not self.pending and not self.marks:
            return
        events, marks = self.pending, self.marks
        self.pending, self.pending_bytes, self.marks = [], 0, {}
        batches = [self._prepare(events[start:start + self.batch_size])
                   for start in range(0, len(events), self.batch_size)]
        # The producer goes on changing its marks (a file's read state): the batch gets
        # them as they are now, when they match its events.
        self._submit(batches, copy.deepcopy(marks))

    def _submit(self, batches: list[PreparedEvents], marks: Marks) -> None:
        if self.hand_over is not None:
            self.hand_over(batches, marks)
            return
        if not self.pipelined or connection.in_atomic_block:
            self._write(batches, marks)
            return
        if self._writer is None:
            self._writer = BatchWriter(self._write)
        self._writer.submit((batches, marks))

    def _write(self, batches: list[PreparedEvents], marks: Marks) -> None:
        with transaction.atomic():
            results: list[EventAppendResult] = []
            for batch in batches:
                results += event_append_prepared(batch=batch)
            if marks and self.commit_marks is not None:
                self.commit_marks(list(marks.values()))
        created = sum(1 for r in results if r.created)
        self.summary.events_stored += created
        self.summary.duplicates += len(results) - created
        self.progress.advance(events=created)

    def _prepare(self, events: list[Event]) -> PreparedEvents:
        """One batch; an event Layer 1 refuses is counted and left out, never fatal."""
        try:
            return event_batch_prepare(source=self.source, events=events)
        except Invalid as exc:
            problems = exc.fields.get("events")
            if not isinstance(problems, dict):
                raise
            bad = {int(index) for index in problems if index.isdigit()}
            if not bad:
                raise
            for index in sorted(bad):  # field names only: a value might hold a secret
                logger.warning("%s event refused by Layer 1 (fields: %s)", self.source,
                               ", ".join(sorted(problems[str(index)])))
            self.summary.malformed["rejected_by_layer1"] += len(bad)
            good = [event for index, event in enumerate(events) if index not in bad]
            return event_batch_prepare(source=self.source, events=good)
