"""`cortex ingest gh FILE`: pull requests, issues, reviews and comments from a gh export."""

from __future__ import annotations

import time
from pathlib import Path

from insight.producers.base import IngestSummary, Progress
from insight.producers.gh_export import SOURCE, NotAnExport, gh_events, gh_export_items
from insight.producers.sink import EventSink


class GhProducer:
    source = SOURCE

    def __init__(self, *, path: Path, repo: str = "") -> None:
        self.path, self.repo = path, repo

    def run(self, *, progress: Progress) -> IngestSummary:
        started = time.monotonic()
        summary = IngestSummary(source=self.source, files=1)
        summary.files_by_kind["gh-export"] += 1
        data = self.path.read_bytes()
        progress.start(files=1, total_bytes=len(data))
        try:
            items = gh_export_items(data, repo=self.repo)
        except NotAnExport as error:
            raise NotAnExport(f"{self.path}: {error}") from None
        with EventSink(source=self.source, summary=summary, progress=progress) as sink:
            for item in items:
                summary.lines += 1
                events = gh_events(item, repo=self.repo)
                summary.records += len(events)
                sink.add(events)
            sink.flush()
        summary.bytes_read = len(data)
        progress.advance(files=1, bytes_read=len(data))
        summary.seconds = time.monotonic() - started
        return summary
