"""Turn the new lines of a session's transcripts into events in the spool."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from insight.hooks.config import READ_BYTES, HookConfig, hooks_dir
from insight.hooks.files import state_load, state_lock_path, state_save, try_lock
from insight.hooks.spool import spool_write
from insight.producers.claude_code_reader import ReadCounters, transcript_events
from insight.producers.claude_code_records import (
    SOURCE,
    STRING_LIMIT,
    TEXT_LIMIT,
    cut_long_strings,
    project_of,
)

LIVE_EVENTS = ("SessionStart", "UserPromptSubmit")


def session_files(transcript: Path) -> list[Path]:
    """The main transcript and its 2.1.x subagent files."""
    subagents = transcript.parent / transcript.stem / "subagents"
    files = [transcript]
    if subagents.is_dir():
        files += sorted(subagents.glob("agent-*.jsonl"))
    return files


def capture(hook_input: dict[str, Any], config: HookConfig, *, event: str = "") -> int:
    """Spool the hook's own event and those of every line appended to the session's
    transcripts since the last call; returns how many."""
    own = hook_event(event, hook_input)
    spool_write([own] if own else [])
    return int(own is not None) + _capture_transcript(hook_input, config) + capture_waiting(
        config)


def hook_event(event: str, hook_input: dict[str, Any]) -> dict[str, Any] | None:
    """A session starting, a prompt submitted: known to Cortex when they happen, before
    Claude Code writes them to the transcript (it writes a session's first lines once its
    first exchange is done). Subtype `hook.<Event>`: the analyzers read the transcript's own
    record of the prompt (`user.prompt`), never this one, so nothing is counted twice."""
    session = hook_input.get("session_id")
    if event not in LIVE_EVENTS or not isinstance(session, str) or not session:
        return None
    prompt_id = hook_input.get("prompt_id")
    # Generated once, spooled with the event: a flush that is retried posts the same id.
    key = prompt_id if isinstance(prompt_id, str) and prompt_id else uuid.uuid4().hex
    cwd = hook_input.get("cwd")
    payload = {k: v for k, v in hook_input.items() if k != "transcript_path"}
    return {
        "source_id": f"hook:{session[:200]}:{event}:{key[:200]}",
        "type": SOURCE,
        "subtype": f"hook.{event}",
        "occurred_at": datetime.now(UTC).isoformat(),
        "actor": "system",
        "project": project_of(cwd)[:TEXT_LIMIT] if isinstance(cwd, str) else "",
        "correlation": {"session": session[:TEXT_LIMIT], "thread": "", "parent": ""},
        "payload": cut_long_strings(payload, STRING_LIMIT, []),
    }


def waiting_dir() -> Path:
    """Hook inputs the plugin's launcher kept while `cortex` could not run (not installed)."""
    return hooks_dir() / "waiting"


def capture_waiting(config: HookConfig) -> int:
    """Read the transcripts of the sessions seen while `cortex` could not run, then forget
    them: their lines are in the spool from here on."""
    directory = waiting_dir()
    if not directory.is_dir():
        return 0
    total, seen = 0, set()
    for kept in sorted(directory.glob("*.json")):
        try:
            hook_input = json.loads(kept.read_bytes())
        except (OSError, ValueError):
            hook_input = None
        path = hook_input.get("transcript_path") if isinstance(hook_input, dict) else None
        if isinstance(path, str) and path not in seen:
            seen.add(path)
            total += _capture_transcript({"transcript_path": path}, config)
        kept.unlink(missing_ok=True)
    return total


def _capture_transcript(hook_input: dict[str, Any], config: HookConfig) -> int:
    path = hook_input.get("transcript_path")
    if not isinstance(path, str) or not path.endswith(".jsonl"):
        return 0
    transcript = Path(path).expanduser()
    # The same root as `cortex ingest claude-code ~/.claude/projects`: payloads match.
    root = transcript.parent.parent
    total = 0
    for file in session_files(transcript):
        if file.is_file():
            total += _capture_file(file, root, config)
    return total


def _capture_file(file: Path, root: Path, config: HookConfig) -> int:
    with try_lock(state_lock_path(file)) as got:
        if not got:  # a concurrent hook of the same session is reading it
            return 0
        state = state_load(file)
        events: list[dict[str, Any]] = []
        for line_events in transcript_events(file, root=root, state=state,
                                             counters=ReadCounters(),
                                             payload_limit=config.payload_limit,
                                             limit=READ_BYTES):
            events.extend(line_events)
        spool_write(events)  # durable before the position moves past these lines
        state_save(file, state)
        return len(events)
