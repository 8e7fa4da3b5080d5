"""What one reader of transcripts does: a file's new lines into a sink, and a share of files
read into prepared batches handed over (insight/producers/claude_code_readers.py)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings

from insight.file_state import FileState
from insight.producers.base import IngestSummary, Progress
from insight.producers.claude_code_reader import (
    ReadCounters,
    file_kind,
    file_unchanged,
    transcript_events,
)
from insight.producers.claude_code_records import SOURCE
from insight.producers.sink import EventSink
from insight.services.ingest_state import FileMark

Job = tuple[str, str]  # (root, path)


def read_file(root: Path, path: Path, state: FileState, sink: EventSink,
              counters: ReadCounters, summary: IngestSummary, progress: Progress, *,
              stat: os.stat_result | None = None) -> None:
    """What was appended to one transcript since `state`, into the sink (`stat`: the file's,
    when the caller has it)."""
    kind = file_kind(path)[0]
    summary.files += 1
    summary.files_by_kind[kind] += 1
    try:
        st = stat or path.stat()
    except OSError:
        summary.malformed["unreadable_file"] += 1
        return
    if file_unchanged(st, state):  # an unchanged re-run opens none of its files
        progress.advance(files=1)  # (nor pays for the rest: ~0.1 ms a file, 6,581 of them)
        return
    base = root if root.is_dir() else root.parent
    mark = FileMark(path=path, rel_path=_relative(path, base), kind=kind, state=state)
    before, initial = counters.bytes_read, state.as_dict()
    key = str(path)  # marked at every line: a str keeps its hash, a Path computes it
    try:
        if not state.inode and st.st_size == 0:  # reported once, when first seen
            summary.malformed["empty_file"] += 1
        for events in transcript_events(path, root=base, state=state, counters=counters,
                                        payload_limit=settings.CORTEX_MAX_PAYLOAD_BYTES):
            sink.mark(key, mark)
            sink.add(events, size=counters.bytes_read - before)
            progress.advance(bytes_read=counters.bytes_read - before)
            before = counters.bytes_read
    except OSError:
        summary.malformed["unreadable_file"] += 1
        return
    if state.as_dict() != initial:
        sink.mark(key, mark)
    progress.advance(files=1)


def _relative(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return path.name


class _Advance:
    """What a reader read since its last batch, sent with the next one."""

    def __init__(self) -> None:
        self.files = self.bytes_read = 0

    def start(self, *, files: int, total_bytes: int) -> None:
        return None

    def advance(self, *, files: int = 0, bytes_read: int = 0, events: int = 0) -> None:
        self.files += files
        self.bytes_read += bytes_read

    def take(self) -> tuple[int, int]:
        taken, self.files, self.bytes_read = (self.files, self.bytes_read), 0, 0
        return taken


def share_read(*, jobs: list[Job], states: dict[str, FileState],
               put: Callable[[tuple[Any, ...]], None]) -> None:
    """Read a share; put ("batch", batches, marks, files, bytes) as each batch is prepared,
    then ("done", summary, counters, files, bytes)."""
    summary, counters, advance = IngestSummary(source=SOURCE), ReadCounters(), _Advance()

    def hand_over(batches: list[Any], marks: dict[Any, Any]) -> None:
        put(("batch", batches, marks, *advance.take()))

    with EventSink(source=SOURCE, summary=summary, hand_over=hand_over) as sink:
        for root, path in jobs:
            read_file(Path(root), Path(path), states.get(path) or FileState(), sink, counters,
                      summary, advance)
        sink.flush()
    put(("done", summary, counters, *advance.take()))
