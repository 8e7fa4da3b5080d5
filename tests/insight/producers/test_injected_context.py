"""Cortex's own context, recorded in the transcript by Claude Code, is never read back as the
operator's words; the newest record types are read as events, never an error."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from insight.analyzers import ANALYZERS
from insight.file_state import FileState
from insight.producers.claude_code_reader import ReadCounters, transcript_events
from memory.context.render import FENCE_CLOSE, FENCE_OPEN

from .helpers import CWD, SESSION, record, write

# What Cortex would inject for the project: rules of the operator's, quoted.
BLOCK = (f"{FENCE_OPEN}\n## Standing instructions\n- never use requests in this project, "
         "use httpx instead\n- always use pnpm, never npm\n" + FENCE_CLOSE)
INJECTED = ("requests", "httpx", "pnpm")
OWN_RULE = "always run the tests with pytest -x before you commit"


def _attachment(uuid: str, kind: str, **fields: Any) -> dict[str, Any]:
    """An `attachment` record as Claude Code 2.1.328 writes it."""
    rec = record(uuid, kind="attachment")
    rec["attachment"] = {"type": kind, **fields}
    return rec


def _hook_success(uuid: str, event: str) -> dict[str, Any]:
    return _attachment(uuid, "hook_success", hookName=event, hookEvent=event, content=BLOCK,
                       stdout=BLOCK + "\n", stderr="", exitCode=0,
                       command='"${CLAUDE_PLUGIN_ROOT}/bin/cortex-launch" hook ' + event)


def _transcript(tmp_path: Path) -> Path:
    small = {"sessionId": SESSION}
    records = [
        {"type": "queue-operation", "operation": "enqueue", **small,
         "timestamp": "2026-04-01T10:00:00.000Z", "content": "add a retry to the HTTP client"},
        _hook_success("h1", "SessionStart"),
        record("u1", text="add a retry with backoff to the HTTP client"),
        _hook_success("h2", "UserPromptSubmit"),
        _attachment("h3", "hook_additional_context", content=[BLOCK], hookName="UserPromptSubmit"),
        # Older versions put a UserPromptSubmit hook's output in a user message of its own.
        record("u2", text=f"<user-prompt-submit-hook>{BLOCK}</user-prompt-submit-hook>"),
        record("u3", text=BLOCK),
        # The operator pasting a block Cortex gave, then saying something of their own.
        record("u4", text=f"{BLOCK}\n\n{OWN_RULE}"),
        _attachment("e1", "environment", snapshot={"workingDirectory": CWD}),
        {"type": "api-request-shape", **small, "shapeHash": "ab", "shape": {"system": []}},
        {"type": "api-request-blob", **small, "hash": "cd",
         "message": {"role": "system", "content": [{"type": "text", "text": BLOCK}]}},
        {"type": "api-request", **small, "id": "r1", "params": {"model": "m"}},
        {"type": "atis-latch", "atis": "", **small},
        {"type": "last-prompt", "lastPrompt": "add a retry", "leafUuid": "u4", **small},
        {"type": "cost-state", **small, "totalCostUSD": 0},
    ]
    return write(tmp_path / "projects" / "-home-op-code-shop-api" / f"{SESSION}.jsonl",
                 *records)


def _events(path: Path) -> tuple[list[dict[str, Any]], ReadCounters]:
    counters = ReadCounters()
    batches = transcript_events(path, root=path.parent.parent, state=FileState(),
                                counters=counters)
    events = list(itertools.chain.from_iterable(batches))
    ids = itertools.count(1)
    return ([{**event, "id": next(ids), "source": "claude-code", "context": False}
             for event in events], counters)


def test_the_newest_record_types_are_events_never_errors(tmp_path: Path) -> None:
    events, counters = _events(_transcript(tmp_path))
    assert counters.records == 15 and not counters.malformed
    subtypes = [event["subtype"] for event in events]
    assert subtypes.count("attachment.hook_success") == 2
    assert {"attachment.hook_additional_context", "attachment.environment", "queue-operation",
            "api-request", "api-request-blob", "api-request-shape", "atis-latch",
            "cost-state", "last-prompt"} <= set(subtypes)
    by_id = {event["source_id"]: event for event in events}
    assert by_id["h1"]["actor"] == "system"
    # Hook output alone in a user message is injected text, not a prompt.
    assert by_id["u2"]["subtype"] == by_id["u3"]["subtype"] == "user.meta"
    assert by_id["u4"]["subtype"] == "user.prompt"


def test_no_analyzer_reads_cortexs_context_as_the_operators_words(tmp_path: Path) -> None:
    events, _ = _events(_transcript(tmp_path))
    drafts = [draft for analyzer in ANALYZERS.values() if "claude-code" in analyzer.sources
              for draft in analyzer.analyze(events)]
    said = [repr(draft).casefold() for draft in drafts]
    assert not [text for text in said if any(word in text for word in INJECTED)]
    # The operator's own words after the pasted block are still read.
    assert any("pytest -x" in text for text in said)
