"""Incremental reading of one transcript: only what was appended since the last read.

The read position lives in a `FileState` that the caller persists (a database row for
`cortex ingest`, a small file for the hooks). A file whose identity (device, inode,
hash of its first bytes) changed, or that shrank below the offset, was rewritten: it
is read again from 0 and idempotency by source_id drops what was already stored.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from insight.file_state import FileState
from insight.producers.claude_code_records import (
    DEFAULT_PAYLOAD_LIMIT,
    FileContext,
    project_of,
    record_event,
)
from insight.producers.jsonl import RawLine, parse_line, raw_lines

HEAD_BYTES = 4096
LONG_LINE_BYTES = 1024 * 1024
PRESCAN_CHUNK_BYTES = 64 * 1024  # the first record usually has the cwd: no need to read 1 MB
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)


@dataclass
class ReadCounters:
    lines: int = 0
    bytes_read: int = 0
    records: int = 0
    malformed: Counter[str] = field(default_factory=Counter)
    pending_partial: int = 0
    resets: int = 0


def file_kind(path: Path) -> tuple[str, str]:
    """(kind, the session id the path itself names, or "")."""
    if path.name.startswith("agent-"):
        if path.parent.name == "subagents":
            return "subagent", path.parent.parent.name
        return "agent", ""
    if _UUID.match(path.stem):
        return "main", path.stem
    return "other", path.parent.name if _UUID.match(path.parent.name) else ""


def transcript_events(
    path: Path,
    *,
    root: Path,
    state: FileState,
    counters: ReadCounters,
    payload_limit: int = DEFAULT_PAYLOAD_LIMIT,
    limit: int | None = None,
) -> Iterator[list[dict[str, Any]]]:
    """The events of each new complete line; `state` advances as each line is handed out."""
    with path.open("rb") as fh:
        st = os.fstat(fh.fileno())
        if not _same_file(fh, st, state):
            counters.resets += 1
            _reset(state)
        _remember_identity(fh, st, state)
        if st.st_size <= state.offset:
            return
        ctx = _context(path, root, fh, st, state, payload_limit)
        for line in raw_lines(fh, start=state.offset, limit=limit):
            events = _line_events(line, ctx, state, counters)
            if events is None:
                break
            yield events


def _line_events(
    line: RawLine, ctx: FileContext, state: FileState, counters: ReadCounters
) -> list[dict[str, Any]] | None:
    """None when the line is torn (no newline and not parseable yet): stop there."""
    if state.unterminated_tail and line.start == state.offset and not line.data:
        # The newline completing a line that was already read without it.
        state.offset, state.unterminated_tail = line.end, False
        return []
    parsed = parse_line(line.data)
    if not line.terminated and (not parsed.records or "unparseable" in parsed.problems):
        if line.data.strip():
            counters.pending_partial += 1
        return None
    counters.lines += 1
    counters.bytes_read += line.end - line.start
    counters.records += len(parsed.records)
    if parsed.problems:
        counters.malformed.update(parsed.problems)
    if len(line.data) > LONG_LINE_BYTES:
        counters.malformed["long_line"] += 1
    cuts: list[int] = []
    events = [
        record_event(record, raw, ctx=ctx, offset=line.start, truncations=cuts)
        for record, raw in parsed.records
    ]
    if cuts:
        counters.malformed["truncated_string"] += len(cuts)
    state.offset, state.unterminated_tail = line.end, not line.terminated
    state.last_timestamp = ctx.last_timestamp
    return events


def file_unchanged(st: os.stat_result, state: FileState) -> bool:
    """Read to its end and not touched since (same identity, size and modification time):
    nothing to read, and no need to open it. A file rewritten in place changes its mtime, one
    appended to its size; either is opened and checked as before."""
    return (bool(state.mtime_ns) and not state.unterminated_tail and state.offset == state.size
            and (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
            == (state.device, state.inode, state.size, state.mtime_ns))


def _same_file(fh: IO[bytes], st: os.stat_result, state: FileState) -> bool:
    if not state.inode:
        return True
    if (st.st_dev, st.st_ino) != (state.device, state.inode) or st.st_size < state.offset:
        return False
    if state.head_len:
        fh.seek(0)
        return hashlib.sha256(fh.read(state.head_len)).hexdigest() == state.head_sha
    return True


def _reset(state: FileState) -> None:
    for f in fields(FileState):
        setattr(state, f.name, f.default)


def _remember_identity(fh: IO[bytes], st: os.stat_result, state: FileState) -> None:
    state.device, state.inode, state.size = st.st_dev, st.st_ino, st.st_size
    state.mtime_ns = st.st_mtime_ns
    head_len = min(HEAD_BYTES, st.st_size)
    if head_len != state.head_len:
        fh.seek(0)
        state.head_sha = hashlib.sha256(fh.read(head_len)).hexdigest()
        state.head_len = head_len


def _context(
    path: Path, root: Path, fh: IO[bytes], st: os.stat_result, state: FileState, limit: int
) -> FileContext:
    kind, named_session = file_kind(path)
    if not state.cwd or not (state.session or named_session):
        _prescan(fh, state)
    session = named_session or state.session
    parent = session if kind in ("agent", "subagent") else ""
    state.parent_session = parent
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        rel = path.name
    return FileContext(
        rel_path=rel,
        kind=kind,
        session=session,
        parent_session=parent,
        project=state.project,
        cwd=state.cwd,
        last_timestamp=state.last_timestamp,
        mtime_iso=datetime.fromtimestamp(st.st_mtime, tz=UTC).isoformat(),
        payload_limit=limit,
    )


def _prescan(fh: IO[bytes], state: FileState) -> None:
    """The project comes from the first record that has a `cwd`, wherever it is."""
    for line in raw_lines(fh, start=0, chunk_bytes=PRESCAN_CHUNK_BYTES):
        if b'"cwd"' not in line.data and b'"sessionId"' not in line.data:
            continue
        for record, _raw in parse_line(line.data).records:
            cwd, session = record.get("cwd"), record.get("sessionId")
            if not state.cwd and isinstance(cwd, str) and cwd:
                state.cwd, state.project = cwd, project_of(cwd)
            if not state.session and isinstance(session, str) and session:
                state.session = session
        if state.cwd and state.session:
            return
