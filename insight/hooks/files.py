"""Small files under CORTEX_HOME/hooks: per-transcript read state, locks, the log."""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import orjson

from insight.file_state import FileState
from insight.hooks.config import hooks_dir

LOG_BYTES = 1024 * 1024


@contextmanager
def try_lock(path: Path, *, wait: float = 0.1) -> Iterator[bool]:
    """An exclusive lock if it comes within `wait` seconds; yields whether it was taken."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        until = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                got = True
                break
            except BlockingIOError:
                if time.monotonic() >= until:
                    got = False
                    break
                time.sleep(0.01)
        yield got
    finally:
        os.close(fd)  # releases the lock


def _state_base(transcript: Path) -> Path:
    directory = hooks_dir() / "state"
    directory.mkdir(exist_ok=True)
    return directory / hashlib.sha256(str(transcript).encode()).hexdigest()[:32]


def state_lock_path(transcript: Path) -> Path:
    return _state_base(transcript).with_suffix(".lock")


def state_load(transcript: Path) -> FileState:
    try:
        data = orjson.loads(_state_base(transcript).with_suffix(".json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return FileState()
    return FileState.from_dict(data.get("state", {})) if isinstance(data, dict) else FileState()


def state_save(transcript: Path, state: FileState) -> None:
    path = _state_base(transcript).with_suffix(".json")
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(orjson.dumps({"path": str(transcript), "state": state.as_dict()}))
    os.replace(tmp, path)


def log(message: str) -> None:
    """One line in hooks/hook.log (never a token or an event's content)."""
    try:
        path = hooks_dir() / "hook.log"
        if path.exists() and path.stat().st_size > LOG_BYTES:
            os.replace(path, path.with_suffix(".log.1"))
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        with path.open("a", encoding="utf-8") as fh:
            fh.write(f"{stamp} {message}\n")
    except OSError:
        pass
