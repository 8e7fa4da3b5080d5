"""Where the hooks keep their files, and how they reach Cortex."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import NamedTuple

from memory.limits import EVENT_PAYLOAD_BYTES

DEFAULT_URL = "http://127.0.0.1:8000"
DEFAULT_TIMEOUT = 0.4  # seconds per request; the whole hook stays under a second
READ_BYTES = 8 * 1024 * 1024  # per transcript per call; the rest waits for the next call


def cortex_home() -> Path:
    return Path(os.environ.get("CORTEX_HOME", "~/.cortex")).expanduser()


def hooks_dir() -> Path:
    path = cortex_home() / "hooks"
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_path() -> Path:
    return hooks_dir() / "config.json"


class HookConfig(NamedTuple):
    url: str
    token: str
    timeout: float
    payload_limit: int


def config_load() -> HookConfig:
    """Environment first (CORTEX_URL, CORTEX_TOKEN), then the file `hook install` wrote."""
    stored: dict[str, str] = {}
    try:
        loaded = json.loads(config_path().read_bytes())  # not orjson: see client.dumps_light
        stored = loaded if isinstance(loaded, dict) else {}
    except (OSError, ValueError):
        pass
    return HookConfig(
        url=(os.environ.get("CORTEX_URL") or stored.get("url") or DEFAULT_URL).rstrip("/"),
        token=os.environ.get("CORTEX_TOKEN") or stored.get("token") or "",
        timeout=float(os.environ.get("CORTEX_HOOK_TIMEOUT") or DEFAULT_TIMEOUT),
        payload_limit=int(os.environ.get("CORTEX_MAX_PAYLOAD_BYTES") or EVENT_PAYLOAD_BYTES),
    )


def config_save(*, url: str | None, token: str | None) -> Path:
    """Write the URL and token (0600); keeps what is not given."""
    path = config_path()
    current: dict[str, str] = {}
    import orjson

    if path.exists():
        loaded = orjson.loads(path.read_bytes())
        current = loaded if isinstance(loaded, dict) else {}
    if url:
        current["url"] = url.rstrip("/")
    if token:
        current["token"] = token
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(orjson.dumps(current, option=orjson.OPT_INDENT_2))
    os.replace(tmp, path)
    return path
