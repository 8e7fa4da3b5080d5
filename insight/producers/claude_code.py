"""`cortex ingest claude-code`: every transcript under the roots, incrementally."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.db import connection

from insight.file_state import FileState
from insight.producers.base import IngestSummary, Progress
from insight.producers.claude_code_files import Job, read_file
from insight.producers.claude_code_reader import (
    ReadCounters,
)
from insight.producers.claude_code_readers import reader_shares, readers_run
from insight.producers.claude_code_records import SOURCE
from insight.producers.sink import EventSink
from insight.selectors.ingest_state import source_file_states_get
from insight.services.ingest_state import source_files_save
from memory.services.sql import connection_url


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
        parent = Path(directory)  # once: a Path parsed per file was most of the walk
        for name in sorted(files):
            if name.endswith(".jsonl"):
                yield parent / name


class ClaudeCodeProducer:
    source = SOURCE

    def __init__(self, *, roots: list[Path], readers: int = 1) -> None:
        """`readers`: the reader processes a large read may be split across (1: read here).
        Worth it only when a core would be idle otherwise: beside the analysis and retain
        stages both cores are busy, and the readers' own cost (their start, handing every
        batch over) makes the whole import take longer."""
        self.roots = [root.resolve() for root in roots]
        self.readers = readers

    def run(self, *, progress: Progress) -> IngestSummary:
        started = time.monotonic()
        summary = IngestSummary(source=self.source)
        files = [(root, path) for root in self.roots for path in transcript_files(root)]
        states = source_file_states_get(paths=[path for _, path in files])
        stats = {path: _stat(path) for _, path in files}
        unread = _unread_bytes(stats, states)
        progress.start(files=len(files), total_bytes=sum(unread.values()))
        counters = ReadCounters()
        with EventSink(source=self.source, summary=summary, progress=progress,
                       commit_marks=lambda marks: source_files_save(marks=marks)) as sink:
            shares = _shares(files, unread, self.readers)
            if len(shares) > 1:
                readers_run(shares=shares, states=states, sink=sink, summary=summary,
                            counters=counters, progress=progress,
                            database_url=connection_url(), redis_url=settings.REDIS_URL)
            else:
                for root, path in files:
                    state = states.get(str(path)) or FileState()
                    read_file(root, path, state, sink, counters, summary, progress,
                              stat=stats[path])
            sink.flush()
        _merge(summary, counters)
        summary.seconds = time.monotonic() - started
        return summary


def _shares(files: list[tuple[Path, Path]], unread: dict[Path, int],
            readers: int) -> list[list[Job]]:
    """The reader processes' shares of a large read outside a transaction (none: read here)."""
    if readers < 2 or connection.in_atomic_block:
        return []
    if sum(unread.values()) < settings.CORTEX_INGEST_READERS_FROM_BYTES:
        return []
    return reader_shares(files, unread, readers)


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except OSError:
        return None


def _unread_bytes(stats: dict[Path, os.stat_result | None],
                  states: dict[str, FileState]) -> dict[Path, int]:
    unread = {}
    for path, stat in stats.items():
        state = states.get(str(path))
        unread[path] = max((stat.st_size if stat else 0) - (state.offset if state else 0), 0)
    return unread


def _merge(summary: IngestSummary, counters: ReadCounters) -> None:
    summary.lines = counters.lines
    summary.bytes_read = counters.bytes_read
    summary.records = counters.records
    summary.malformed.update(counters.malformed)
    summary.pending_partial_lines = counters.pending_partial
    summary.files_reset = counters.resets
