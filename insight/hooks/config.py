"""Where the hooks keep their files, and how they reach Cortex."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from memory.limits import EVENT_PAYLOAD_BYTES
from memory.runtime import runtime_read

DEFAULT_URL = "http://127.0.0.1:8000"
# What SessionStart may inject, in tokens: the one setting (`session_start_tokens` in
# hooks/config.json, `cortex setup claude-code --session-start-tokens N`).
DEFAULT_SESSION_START_TOKENS = 1500
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
    url_from: str = "the default"  # where the URL was found, said by install and status
    session_start_tokens: int = DEFAULT_SESSION_START_TOKENS


def _stored() -> dict[str, Any]:
    try:
        loaded = json.loads(config_path().read_bytes())  # not orjson: see client.dumps_light
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def url_find(stored: dict[str, Any]) -> tuple[str, str]:
    """(URL, where it came from): CORTEX_URL, the URL saved by `--url`, where the last
    `cortex up` of this CORTEX_HOME listens, or the default."""
    if os.environ.get("CORTEX_URL"):
        return os.environ["CORTEX_URL"].rstrip("/"), "CORTEX_URL"
    saved = stored.get("url")
    if isinstance(saved, str) and saved:
        return saved.rstrip("/"), f"{config_path()}"
    running = runtime_read(cortex_home())
    url = running.get("url") if running else None
    if isinstance(url, str) and url:
        stopped = running.get("stopped_at") if running else None
        return url.rstrip("/"), (f"the last cortex up, stopped at {stopped} (CORTEX_HOME/up.json)"
                                 if stopped else "cortex up (CORTEX_HOME/up.json)")
    return DEFAULT_URL, "the default (no cortex up has recorded its address)"


def config_load() -> HookConfig:
    """Environment first (CORTEX_URL, CORTEX_TOKEN), then the file `hook install` or
    `setup claude-code` wrote, then where `cortex up` listens."""
    stored = _stored()
    url, url_from = url_find(stored)
    tokens = stored.get("session_start_tokens")
    return HookConfig(
        url=url,
        token=os.environ.get("CORTEX_TOKEN") or str(stored.get("token") or ""),
        timeout=float(os.environ.get("CORTEX_HOOK_TIMEOUT") or DEFAULT_TIMEOUT),
        payload_limit=int(os.environ.get("CORTEX_MAX_PAYLOAD_BYTES") or EVENT_PAYLOAD_BYTES),
        url_from=url_from,
        session_start_tokens=tokens if isinstance(tokens, int) and tokens > 0
        else DEFAULT_SESSION_START_TOKENS,
    )


def config_save(*, url: str | None, token: str | None,
                session_start_tokens: int | None = None) -> Path:
    """Write the URL, token and SessionStart budget (0600); keeps what is not given."""
    path = config_path()
    current: dict[str, Any] = {}
    import orjson

    if path.exists():
        loaded = orjson.loads(path.read_bytes())
        current = loaded if isinstance(loaded, dict) else {}
    if url:
        current["url"] = url.rstrip("/")
    if token:
        current["token"] = token
    if session_start_tokens:
        current["session_start_tokens"] = session_start_tokens
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(orjson.dumps(current, option=orjson.OPT_INDENT_2))
    os.replace(tmp, path)
    return path
