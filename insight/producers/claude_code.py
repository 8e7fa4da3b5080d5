"""`cortex ingest claude-code`: every transcript under the roots, incrementally."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings

from insight.file_state import FileState
from insight.producers.base import IngestSummary, Progress
from insight.producers.claude_code_reader import (
    ReadCounters,
    file_kind,
    transcript_events,
)
from insight.producers.claude_code_records import SOURCE
from insight.producers.sink import EventSink
from insight.selectors.ingest_state import source_file_states_get
from insight.services.ingest_state import FileMark, source_files_save


def default_roots() -> list[Path]:
    """`$CLAUDE_CONFIG_DIR/projects`, `~/.claude/projects` and `~/.config/claude/projects`."""
    candidates = []
    if config_dir := os.environ.get("CLAUDE_CONFIG_DIR"):
        candidates.append(Path(config_dir).expanduser() / "projects")
    candidates += [Path("~/.claude/projects").expanduser(),
                   Path("~/.config/claude/projects").expanduser()]
    seen: list[Path] = []
    for path in candidates:
        if path.is_dir() and path.resolve() not in seen:
            seen.append(path.resolve())
    return seen


def transcript_files(root: Path) -> Iterator[Path]:
    """Every `.jsonl` under root, in a stable order (main transcripts, agent files, others)."""
    if root.is_file():
        yield root
        return
    for directory, subdirs, files in os.walk(root):
        subdirs.sort()
        for name in sorted(files):
            if name.endswith(".jsonl"):
                yield Path(directory) / name


class ClaudeCodeProducer:
    source = SOURCE

    def __init__(self, *, roots: list[Path]) -> None:
        self.roots = [root.resolve() for root in roots]

    def run(self, *, progress: Progress) -> IngestSummary:
        started = time.monotonic()
        summary = IngestSummary(source=self.source)
        files = [(root, path) for root in self.roots for path in transcript_files(root)]
        states = source_file_states_get(paths=[path for _, path in files])
        progress.start(files=len(files), total_bytes=_unread_bytes(files, states))
        counters = ReadCounters()
        with EventSink(source=self.source, summary=summary, progress=progress,
                       commit_marks=lambda marks: source_files_save(marks=marks)) as sink:
            for root, path in files:
                state = states.get(str(path)) or FileState()
                self._read_file(root, path, state, sink, counters, summary, progress)
            sink.flush()
        _merge(summary, counters)
        summary.seconds = time.monotonic() - started
        return summary

    def _read_file(self, root: Path, path: Path, state: FileState, sink: EventSink,
                   counters: ReadCounters, summary: IngestSummary, progress: Progress) -> None:
        kind = file_kind(path)[0]
        base = root if root.is_dir() else root.parent
        mark = FileMark(path=path, rel_path=_relative(path, base), kind=kind, state=state)
        summary.files += 1
        summary.files_by_kind[kind] += 1
        before, initial = counters.bytes_read, state.as_dict()
        key = str(path)  # marked at every line: a str keeps its hash, a Path computes it
        try:
            if not state.inode and path.stat().st_size == 0:  # reported once, when first seen
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


def _unread_bytes(files: list[tuple[Path, Path]], states: dict[str, FileState]) -> int:
    total = 0
    for _, path in files:
        try:
            size = path.stat().st_size
        except OSError:
            continue
        state = states.get(str(path))
        total += max(size - (state.offset if state else 0), 0)
    return total


def _merge(summary: IngestSummary, counters: ReadCounters) -> None:
    summary.lines = counters.lines
    summary.bytes_read = counters.bytes_read
    summary.records = counters.records
    summary.malformed.update(counters.malformed)
    summary.pending_partial_lines = counters.pending_partial
    summary.files_reset = counters.resets
