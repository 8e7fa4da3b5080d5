"""Batches producers' events into Layer 1, committing each batch with the read position.

A batch (at most CORTEX_MAX_BATCH events, and a bounded number of bytes so memory stays
flat when lines are huge) and the marks added since the previous batch (where each file
or repository was read up to) are written in one transaction: a crash never leaves a
position ahead of the events it covers, and idempotency absorbs the re-read behind it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from django.conf import settings
from django.db import transaction

from insight.producers.base import Event, IngestSummary, NoProgress, Progress
from memory.services.events import EventAppendResult, EventsRejected, event_append_many

logger = logging.getLogger(__name__)

MAX_PENDING_BYTES = 8 * 1024 * 1024


class EventSink:
    def __init__(
        self,
        *,
        source: str,
        summary: IngestSummary,
        commit_marks: Callable[[list[Any]], None] | None = None,
        progress: Progress | None = None,
        batch_size: int | None = None,
    ) -> None:
        self.source, self.summary = source, summary
        self.commit_marks = commit_marks
        self.progress = progress or NoProgress()
        self.batch_size = min(batch_size or settings.CORTEX_MAX_BATCH, settings.CORTEX_MAX_BATCH)
        self.pending: list[Event] = []
        self.pending_bytes = 0
        self.marks: dict[Hashable, Any] = {}

    def mark(self, key: Hashable, value: Any) -> None:
        """Committed with the next batch (the latest value per key)."""
        self.marks[key] = value

    def add(self, events: Sequence[Event], *, size: int = 0) -> None:
        self.pending.extend(events)
        self.pending_bytes += size
        if len(self.pending) >= self.batch_size or self.pending_bytes >= MAX_PENDING_BYTES:
            self.flush()

    def flush(self) -> None:
        if not self.pending and not self.marks:
            return
        events, marks = self.pending, list(self.marks.values())
        with transaction.atomic():
            results: list[EventAppendResult] = []
            for start in range(0, len(events), self.batch_size):
                results += self._append(events[start:start + self.batch_size])
            if marks and self.commit_marks is not None:
                self.commit_marks(marks)
        created = sum(1 for r in results if r.created)
        self.summary.events_stored += created
        self.summary.duplicates += len(results) - created
        self.pending, self.pending_bytes, self.marks = [], 0, {}
        self.progress.advance(events=created)

    def _append(self, events: list[Event]) -> list[EventAppendResult]:
        """One batch; an event Layer 1 refuses is counted and left out, never fatal."""
        if not events:
            return []
        try:
            return event_append_many(source=self.source, events=events)
        except EventsRejected as exc:
            bad = {int(index) for index in exc.fields if index.isdigit()}
            if not bad:
                raise
            for index in sorted(bad):  # field names only: a value might hold a secret
                logger.warning("%s event refused by Layer 1 (fields: %s)", self.source,
                               ", ".join(sorted(exc.fields[str(index)])))
            self.summary.malformed["rejected_by_layer1"] += len(bad)
            good = [event for index, event in enumerate(events) if index not in bad]
            return event_append_many(source=self.source, events=good) if good else []
