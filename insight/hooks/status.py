"""What the last hook found, kept for `cortex hook status`, and said in one log line when it
could not reach Cortex (the model is never told: a hook prints Cortex's context or nothing)."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from insight.hooks.client import Reply
from insight.hooks.config import HookConfig, hooks_dir
from insight.hooks.spool import FlushResult

_REFUSED = (401, 403)


class Outcome(NamedTuple):
    state: str  # reached | unreachable | refused | not set up | not asked
    says: str  # one line for the operator (never a token or an event's content)

    @property
    def problem(self) -> bool:
        return self.state in ("unreachable", "refused", "not set up")


def outcome_of(config: HookConfig, *, reply: Reply | None, flush: FlushResult) -> Outcome:
    """What this call found: the context's answer and the flush's, the worst of the two."""
    statuses = [s for s in (reply.status if reply else None, flush.status) if s is not None]
    where = f"{config.url} (from {config.url_from})"
    if not config.token:
        return Outcome("not set up", "no token: run `cortex setup claude-code` "
                       f"(or `cortex hook install --token T`); Cortex would be {where}")
    if any(s in _REFUSED for s in statuses):
        code = next(s for s in statuses if s in _REFUSED)
        return Outcome("refused", f"Cortex at {where} refuses the token (HTTP {code}); "
                       "run `cortex setup claude-code` again")
    if 0 in statuses:
        return Outcome("unreachable", f"Cortex does not answer at {where} within "
                       f"{config.timeout:g}s; is `cortex up` running?")
    if statuses:
        return Outcome("reached", f"Cortex answers at {where}")
    return Outcome("not asked", f"nothing to send or ask; Cortex is {where}")


def _status_path() -> Path:
    return hooks_dir() / "last.json"


def status_save(event: str, outcome: Outcome, *, spooled: int, flush: FlushResult,
                context_chars: int, started: float) -> None:
    record = {"at": datetime.now(UTC).isoformat(timespec="seconds"), "event": event,
              "state": outcome.state, "says": outcome.says, "spooled": spooled,
              "sent": flush.sent, "waiting_segments": flush.left,
              "context_chars": context_chars,
              "seconds": round(time.monotonic() - started, 3)}
    path = _status_path()
    tmp = path.with_name(f".last.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(record), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


def status_load() -> dict[str, Any] | None:
    try:
        value = json.loads(_status_path().read_bytes())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def status_lines(*, waiting_segments: int, waiting_sessions: int) -> list[str]:
    """`cortex hook status`: the last call's outcome, what waits, where the log is."""
    last = status_load()
    lines = []
    if last is None:
        lines.append("No hook has run yet with this CORTEX_HOME.")
    else:
        context = (f", printed {last.get('context_chars', 0)} characters of context"
                   if last.get("context_chars") else "")
        lines.append(f"Last hook: {last.get('event')} at {last.get('at')}: "
                     f"{last.get('state')} ({last.get('says')}); spooled "
                     f"{last.get('spooled', 0)}, sent {last.get('sent', 0)}{context}.")
    lines.append(f"{waiting_segments} segment(s) waiting in the spool"
                 + (f", {waiting_sessions} session(s) seen while cortex could not run"
                    if waiting_sessions else "") + ".")
    lines.append(f"Log: {hooks_dir() / 'hook.log'}")
    return lines


def probe_line(config: HookConfig, *, timeout: float = 3.0) -> str:
    """One line saying whether Cortex answers where the hooks will look, and whether it
    accepts their token for both of their requests (an empty batch of events, an empty
    context request: refused as invalid only once the token and its scope are accepted)."""
    from insight.hooks.client import post_json

    where = f"{config.url} (from {config.url_from})"
    events = post_json(f"{config.url}/api/events/", {"events": []}, token=config.token,
                       timeout=timeout)
    if events.status == 0:
        return (f"Cortex does not answer at {where}: the hooks will queue events under "
                f"{hooks_dir() / 'spool'} until it does (start it with `cortex up`).")
    if not config.token:
        return (f"Cortex answers at {where}, but there is no token yet: run "
                "`cortex setup claude-code` (or pass --token).")
    if events.status in _REFUSED:
        return (f"Cortex answers at {where} but refuses the token (HTTP {events.status}): "
                "it needs events:write and context:read.")
    context = post_json(f"{config.url}/api/context/", {}, token=config.token,
                        timeout=timeout)
    if context.status in _REFUSED:
        return (f"Cortex answers at {where} and takes events, but the token cannot read "
                f"context (HTTP {context.status}, needs context:read): no context will be "
                "printed.")
    return f"Cortex answers at {where} and accepts the token (events and context)."
