"""Permission requests and the operator's answers -> `permission_request` on
`agent:<agent>:skill`, naming the tool and the rule pattern (`Bash(npm test:*)`).

Transcripts record a prompt only when it was refused or could not be asked (`requested`,
`denied`, `blocked`); an approval leaves no line, so a gated tool call that ran is
recorded as `granted` with `inferred: true`, once per session and pattern. A change of
permission mode (`acceptEdits`, `bypassPermissions`) is a blanket grant: `mode`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from insight.analyzers import namespaces
from insight.analyzers.base import Analyzer, Event, ObservationDraft
from insight.analyzers.claude_messages import (
    BLOCKED,
    NOT_GRANTED,
    REJECTED,
    REJECTION_REASON,
    REQUIRES_APPROVAL,
)
from insight.analyzers.commands import permission_pattern
from insight.analyzers.events import (
    actor,
    agent_of,
    base_agent,
    block_text,
    blocks,
    correlation,
    draft,
    observed,
    payload,
    tool_calls,
    tool_input,
)
from insight.analyzers.text import excerpt

GATED = {"Bash", "Write", "Edit", "MultiEdit", "NotebookEdit", "WebFetch", "WebSearch"}
_ACTION_TOOLS = {"write to": "Write", "read from": "Read", "edit": "Edit", "access": "Read"}


def _is_gated(tool: str) -> bool:
    return tool in GATED or tool.startswith("mcp__")


def _draft(event: Event, *, decision: str, tool: str, pattern: str, key: str,
           **extra: Any) -> ObservationDraft:
    agent = base_agent(event)
    denied = decision in {"denied", "blocked"}
    return draft(
        event,
        category="permission_request",
        target_namespace=namespaces.permission(agent),
        topic=f"{decision} {pattern}",
        actors=(actor(agent, "requester"), actor("operator", "decider")),
        sentiment="negative" if denied else "neutral",
        sentiment_score=-0.3 if denied else 0.0,
        payload={"tool": tool, "pattern": pattern, "decision": decision,
                 "agent": agent_of(event), **extra},
        key=key,
    )


def _decision(text: str, call_name: str, call_input: Mapping[str, Any]) -> dict[str, Any] | None:
    """What a refused tool result says: decision, tool, pattern and details."""
    if REJECTED.search(text):
        reason = REJECTION_REASON.search(text)
        extra = {"reason": excerpt(reason.group("reason"), 300)} if reason else {}
        return {"decision": "denied", "tool": call_name,
                "pattern": permission_pattern(call_name, dict(call_input)), **extra}
    if found := NOT_GRANTED.search(text):
        tool = found.group("tool") or _ACTION_TOOLS.get(found.group("action") or "", call_name)
        extra = {"path": found.group("path")} if found.group("path") else {}
        return {"decision": "requested", "tool": tool,
                "pattern": permission_pattern(tool, dict(call_input)), **extra}
    if found := REQUIRES_APPROVAL.search(text):
        command = (found.group("command") or str(call_input.get("command") or "")).strip()
        return {"decision": "requested", "tool": "Bash", "command": excerpt(command, 200),
                "pattern": permission_pattern("Bash", {"command": command})}
    if found := BLOCKED.search(text):
        return {"decision": "blocked", "tool": call_name, "what": excerpt(found.group("what")),
                "pattern": permission_pattern(call_name, dict(call_input))}
    return None


def _from_results(event: Event, calls: Mapping[str, Mapping[str, Any]]) -> list[ObservationDraft]:
    drafts = []
    session = correlation(event)["session"]
    for block in blocks(event, "tool_result"):
        use_id = str(block.get("tool_use_id") or "")
        call = calls.get(use_id) or {}
        name, call_input = str(call.get("name") or "unknown"), tool_input(call)
        found = _decision(block_text(block.get("content")), name, call_input)
        if found:
            key = f"{event['id']}:{use_id}:{found['decision']}"
            drafts.append(_draft(event, key=key, tool_use_id=use_id, **found))
        elif call and not block.get("is_error") and _is_gated(name):
            pattern = permission_pattern(name, dict(call_input))
            drafts.append(_draft(event, decision="granted", tool=name, pattern=pattern,
                                 key=f"{session}:{pattern}:granted", inferred=True))
    return drafts


def _from_mode(event: Event) -> ObservationDraft | None:
    mode = str(payload(event).get("permissionMode") or "")
    if not mode:
        return None
    session = correlation(event)["session"] or str(payload(event).get("sessionId") or "")
    return _draft(event, decision="mode", tool="*", pattern=f"mode:{mode}",
                  key=f"{session}:{mode}:mode", inferred=False)


def analyze(events: Sequence[Event]) -> list[ObservationDraft]:
    calls = tool_calls(events)
    drafts: list[ObservationDraft] = []
    for event in observed(events):
        subtype = event.get("subtype")
        if subtype == "user.tool_result":
            drafts.extend(_from_results(event, calls))
        elif subtype == "permission-mode" and (found := _from_mode(event)):
            drafts.append(found)
    return drafts


ANALYZER = Analyzer(name="permissions", sources=("claude-code",), analyze=analyze)
