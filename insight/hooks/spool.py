"""The local queue: events wait here until Cortex has them.

Each capture writes one segment file (JSONL, written aside then renamed, so a reader
never sees half of one). A flush posts segments oldest first and deletes each once
Cortex stored it; it stops at the first failure or when its time is up. Re-posting a
segment is harmless (events are idempotent by source_id).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from insight.hooks.client import dumps, post_json
from insight.hooks.config import HookConfig, hooks_dir
from insight.hooks.files import log, try_lock

MAX_EVENTS = 500
MAX_BYTES = 4 * 1024 * 1024
_OK = (200, 201)
_REFUSED = (400, 413, 422)


def spool_dir() -> Path:
    path = hooks_dir() / "spool"
    path.mkdir(exist_ok=True)
    return path


def spool_write(events: list[dict[str, Any]]) -> Path | None:
    if not events:
        return None
    directory = spool_dir()
    name = f"{time.time_ns():020d}-{os.getpid()}"
    tmp = directory / f".{name}.tmp"
    with tmp.open("wb") as fh:
        for event in events:
            fh.write(dumps(event) + b"\n")
    final = directory / f"{name}.jsonl"
    os.replace(tmp, final)
    return final


def spool_segments() -> list[Path]:
    return sorted(spool_dir().glob("*.jsonl"))


@dataclass
class FlushResult:
    sent: int = 0
    quarantined: int = 0
    left: int = 0  # segments still waiting
    reached: bool = True  # False: Cortex could not be reached or refused the token
    status: int | None = None  # the last answer's HTTP status (0: no answer; None: not asked)


def spool_flush(config: HookConfig, *, deadline: float) -> FlushResult:
    result = FlushResult()
    with try_lock(spool_dir() / ".lock", wait=0.02) as got:
        if not got:  # another hook is flushing right now
            result.left = len(spool_segments())
            return result
        segments = spool_segments()
        for index, segment in enumerate(segments):
            if time.monotonic() >= deadline or not _send_segment(segment, config, deadline, result):
                result.left = len(segments) - index
                break
            segment.unlink(missing_ok=True)
    return result


def _send_segment(segment: Path, config: HookConfig, deadline: float, result: FlushResult) -> bool:
    events = []
    for line in segment.read_bytes().splitlines():
        try:
            events.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            continue
    for chunk in _chunks(events):
        if time.monotonic() >= deadline or not _send(chunk, config, deadline, result):
            return False
    return True


def _chunks(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    chunks: list[list[dict[str, Any]]] = [[]]
    size = 0
    for event in events:
        n = len(dumps(event))
        if chunks[-1] and (len(chunks[-1]) >= MAX_EVENTS or size + n > MAX_BYTES):
            chunks.append([])
            size = 0
        chunks[-1].append(event)
        size += n
    return [c for c in chunks if c]


def _send(chunk: list[dict[str, Any]], config: HookConfig, deadline: float,
          result: FlushResult) -> bool:
    if not config.token:
        result.reached = False
        return False
    timeout = max(0.05, min(config.timeout, deadline - time.monotonic()))
    reply = post_json(f"{config.url}/api/events/", {"events": chunk}, token=config.token,
                      timeout=timeout)
    result.status = reply.status
    if reply.status in _OK:
        result.sent += len(chunk)
        return True
    if reply.status in _REFUSED:
        return _without_refused(chunk, reply.body, config, deadline, result)
    result.reached = False
    return False


def _without_refused(chunk: list[dict[str, Any]], body: Any, config: HookConfig,
                     deadline: float, result: FlushResult) -> bool:
    """Set aside the events Cortex refuses (they would block the queue) and send the rest."""
    bad = _refused_indexes(body, len(chunk))
    if not bad and len(chunk) > 1:  # the answer does not say which: halve and retry
        half = len(chunk) // 2
        return (_send(chunk[:half], config, deadline, result)
                and _send(chunk[half:], config, deadline, result))
    bad = bad or {0}
    _quarantine([chunk[i] for i in sorted(bad)])
    result.quarantined += len(bad)
    rest = [event for i, event in enumerate(chunk) if i not in bad]
    return _send(rest, config, deadline, result) if rest else True


def _refused_indexes(body: Any, size: int) -> set[int]:
    try:
        fields = body["error"]["fields"]["events"]
    except (KeyError, TypeError):
        return set()
    if not isinstance(fields, dict):
        return set()
    return {int(k) for k in fields if str(k).isdigit() and int(k) < size}


def _quarantine(events: list[dict[str, Any]]) -> None:
    with (hooks_dir() / "rejected.jsonl").open("ab") as fh:
        for event in events:
            fh.write(dumps(event) + b"\n")
    log(f"{len(events)} event(s) refused by Cortex, kept in hooks/rejected.jsonl")
