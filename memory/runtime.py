"""Where a running `cortex up` listens, recorded under CORTEX_HOME (`up.json`).

`cortex up` writes it once its web server is started and marks it stopped when it stops (the
address stays: a Cortex started again usually listens there again, and a hook that finds it
down says where it looked); the Claude Code hooks read it to find the Cortex that runs (not
a port they were told once), and the plugin's MCP launcher to join its database while it
runs. Django-free: a hook reads it on every call.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

RUNTIME_FILE = "up.json"


def runtime_path(home: Path) -> Path:
    return home / RUNTIME_FILE


def runtime_write(home: Path, record: dict[str, Any]) -> Path:
    """Atomically, readable by the operator only (it names the database's URL)."""
    path = runtime_path(home)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(record, fh, indent=2)
    os.replace(tmp, path)
    return path


def runtime_read(home: Path) -> dict[str, Any] | None:
    """The record, or None when there is none or it is unreadable."""
    try:
        value = json.loads(runtime_path(home).read_bytes())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def runtime_alive(record: dict[str, Any] | None) -> bool:
    """Whether the `cortex up` that wrote `record` still runs (on this machine)."""
    pid = record.get("pid") if record else None
    if not isinstance(pid, int) or pid <= 0 or (record or {}).get("stopped_at"):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def runtime_stopped(home: Path, *, pid: int, at: str) -> None:
    """Mark the record stopped if `pid` wrote it (a second `cortex up` may have replaced it):
    its address kept, its database's forgotten."""
    record = runtime_read(home)
    if record is not None and record.get("pid") == pid:
        kept = {k: v for k, v in record.items() if k not in ("database_url", "redis_url")}
        runtime_write(home, {**kept, "stopped_at": at})
