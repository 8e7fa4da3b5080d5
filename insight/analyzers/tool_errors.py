"""Tool errors: failed tool results (`is_error`, a non-zero `Exit code`) and API errors,
each with a normalized error signature (see signatures.py) -> `tool_error` on
`agent:<agent>:rc`. Refusals and permission checks are not tool errors (permissions.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from insight.analyzers import namespaces
from insight.analyzers.base import Analyzer, Event, ObservationDraft
from insight.analyzers.claude_messages import is_permission_text
from insight.analyzers.events import (
    actor,
    agent_of,
    base_agent,
    block_text,
    blocks,
    draft,
    message_text,
    observed,
    payload,
    tool_calls,
    tool_input,
)
from insight.analyzers.signatures import error_signature, exit_code_of
from insight.analyzers.text import excerpt

API = "anthropic-api"
ERROR_SENTIMENT = ("negative", -0.5)


def _result_text(event: Event, block: Mapping[str, Any]) -> str:
    text = block_text(block.get("content"))
    fallback = payload(event).get("toolUseResult")
    return text or (fallback if isinstance(fallback, str) else "")


def _draft(event: Event, *, tool: str, text: str, **extra: Any) -> ObservationDraft:
    signature, normalized = error_signature(tool=tool, text=text)
    agent = base_agent(event)
    body = {"tool": tool, "signature": signature, "normalized": normalized,
            "message": excerpt(text, 300), "exit_code": exit_code_of(text),
            "agent": agent_of(event), **extra}
    return draft(
        event,
        category="tool_error",
        target_namespace=namespaces.root_cause(agent),
        topic=f"{tool}: {excerpt(normalized, 100)}",
        actors=(actor(agent, "agent"), {"name": tool, "role": "tool"}),
        sentiment=ERROR_SENTIMENT[0],
        sentiment_score=ERROR_SENTIMENT[1],
        payload=body,
        key=f"{event['id']}:{extra.get('tool_use_id', '')}",
    )


def _tool_failures(event: Event, calls: Mapping[str, Mapping[str, Any]]) -> list[ObservationDraft]:
    drafts = []
    for block in blocks(event, "tool_result"):
        text = _result_text(event, block)
        code = exit_code_of(text)
        failed = bool(block.get("is_error")) or (code is not None and code != 0)
        if not failed or is_permission_text(text):
            continue
        use_id = str(block.get("tool_use_id") or "")
        call = calls.get(use_id)
        extra: dict[str, Any] = {"tool_use_id": use_id}
        if command := str(tool_input(call).get("command") or ""):
            extra["command"] = excerpt(command, 200)
        drafts.append(_draft(event, tool=str((call or {}).get("name") or "unknown"),
                             text=text, **extra))
    return drafts


def analyze(events: Sequence[Event]) -> list[ObservationDraft]:
    calls = tool_calls(events)
    drafts: list[ObservationDraft] = []
    for event in observed(events):
        subtype = str(event.get("subtype") or "")
        if subtype == "user.tool_result":
            drafts.extend(_tool_failures(event, calls))
        elif subtype.startswith("assistant.") and payload(event).get("isApiErrorMessage"):
            drafts.append(_draft(event, tool=API, text=message_text(event),
                                 error=str(payload(event).get("error") or "")))
    return drafts


ANALYZER = Analyzer(name="tool_errors", sources=("claude-code",), analyze=analyze)
