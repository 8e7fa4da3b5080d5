"""Transcript lines for tests, in the real record shape."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from django.core.management import call_command

SESSION = "11111111-2222-4333-8444-555555555555"
CWD = "/home/op/code/shop-api"


def record(uuid: str, *, kind: str = "user", text: str = "hello", **extra: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "parentUuid": None, "isSidechain": False, "userType": "external", "cwd": CWD,
        "sessionId": SESSION, "version": "2.1.114", "gitBranch": "main", "type": kind,
        "uuid": uuid, "timestamp": f"2026-04-01T10:{len(uuid) % 60:02d}:00.000Z",
    }
    if kind == "user":
        rec["message"] = {"role": "user", "content": text}
    elif kind == "assistant":
        rec["message"] = {"id": "msg_1", "type": "message", "role": "assistant",
                          "model": "claude", "content": [{"type": "text", "text": text}]}
        rec["requestId"] = "req_1"
    rec.update(extra)
    return rec


def line(rec: dict[str, Any]) -> bytes:
    return json.dumps(rec).encode() + b"\n"


def write(path: Path, *records: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(line(r) for r in records))
    return path


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as fh:
        fh.write(data)


def ingest(*args: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("ingest", *args, "--json", stdout=out)
    data: dict[str, Any] = json.loads(out.getvalue())
    return data
