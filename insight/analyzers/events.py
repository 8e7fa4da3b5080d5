"""Reading Claude Code and git events: the accessors every analyzer shares."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from insight.analyzers.base import Event, ObservationDraft

BASE_AGENT = "claude-code"
# Text Claude Code wraps or injects: tags (<command-name>, <ide_selection>, <bash-input>,
# <system-reminder>...) and its own notices.
_META_TAG = re.compile(r"^<[a-z][\w-]*>")
_META_PREFIXES = (
    "caveat: the messages below",
    "this session is being continued from a previous conversation",
)


# Events come from JSON: `dict` checks (not the slower Mapping ABC) on this hot path.
def payload(event: Event) -> Mapping[str, Any]:
    value = event.get("payload")
    return value if isinstance(value, dict) else {}


def correlation(event: Event) -> dict[str, str]:
    value = event.get("correlation")
    get = value.get if isinstance(value, dict) else {}.get
    # A literal, not a comprehension over the keys: asked several times an event.
    return {"session": str(get("session") or ""), "thread": str(get("thread") or ""),
            "parent": str(get("parent") or "")}


def _thread(event: Event) -> str:
    """correlation(event)["thread"], without building the whole correlation."""
    value = event.get("correlation")
    return str(value.get("thread") or "") if isinstance(value, dict) else ""


def occurred_at(event: Event) -> datetime:
    value = event.get("occurred_at")
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and value:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    return datetime(1970, 1, 1, tzinfo=UTC)


def observed(events: Sequence[Event]) -> Iterator[Event]:
    """The events an analyzer may draw observations from (not the context ones)."""
    return (event for event in events if not event.get("context"))


def is_sidechain(event: Event) -> bool:
    return bool(_thread(event) or payload(event).get("isSidechain"))


def agent_of(event: Event) -> str:
    """The agent an event belongs to: `claude-code`, or `claude-code:<agentId>` in a subagent
    (`claude-code:sidechain` for the old inline sidechains that have no agent id)."""
    name = str(event.get("actor") or "")
    if name.startswith(f"{BASE_AGENT}:"):
        return name
    thread = _thread(event)
    if thread:
        return f"{BASE_AGENT}:{thread}"
    return f"{BASE_AGENT}:sidechain" if payload(event).get("isSidechain") else BASE_AGENT


def base_agent(event: Event) -> str:
    """The agent an event belongs to, a subagent run being an episode of it: every agent
    `agent_of` names is `claude-code` or one of its runs."""
    return BASE_AGENT


def content(event: Event) -> Any:
    message = payload(event).get("message")
    return message.get("content") if isinstance(message, dict) else None


def blocks(event: Event, kind: str) -> list[Mapping[str, Any]]:
    value = content(event)
    if not isinstance(value, list):
        return []
    return [b for b in value if isinstance(b, dict) and b.get("type") == kind]


def block_text(value: Any) -> str:
    """Text of a string, a text block, or a list of blocks (tool_result content is all three)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        text = value.get("text")
        return text if isinstance(text, str) else ""
    if isinstance(value, list):
        return "\n".join(part for part in (block_text(item) for item in value) if part)
    return ""


# Cortex's own context block (memory/context/render.py's fence), wherever a transcript holds
# it: what Cortex injected is never read back as what the operator said.
_CORTEX_FENCE = re.compile(r"<cortex-context\b[^>]*>.*?(?:</cortex-context>|\Z)", re.S)


def message_text(event: Event) -> str:
    value = content(event)
    text = value if isinstance(value, str) else "\n".join(
        block_text(b) for b in blocks(event, "text"))
    return _CORTEX_FENCE.sub("", text) if "<cortex-context" in text else text


def is_operator_prompt(event: Event) -> bool:
    """Text the human typed in a main session (not injected, not a subagent's task)."""
    if event.get("subtype") != "user.prompt" or is_sidechain(event):
        return False
    data = payload(event)
    if data.get("isMeta") or data.get("isCompactSummary"):
        return False
    head = message_text(event).lstrip()[:80].casefold()
    return bool(head) and not head.startswith(_META_PREFIXES) and not _META_TAG.match(head)


def tool_calls(events: Sequence[Event]) -> dict[str, Mapping[str, Any]]:
    """tool_use id -> the tool_use block, across the batch and its context events."""
    calls: dict[str, Mapping[str, Any]] = {}
    for event in events:
        if event.get("subtype") == "assistant.tool_use":
            for block in blocks(event, "tool_use"):
                calls[str(block.get("id"))] = block
    return calls


def tool_input(call: Mapping[str, Any] | None) -> Mapping[str, Any]:
    value = (call or {}).get("input")
    return value if isinstance(value, dict) else {}


def subagent_of(event: Event) -> str:
    """The subagent run an event belongs to (its agent id, `sidechain` for the old inline
    sidechains), "" in a main session. A correlation, never an entity of its own."""
    agent = agent_of(event)
    return agent.split(":", 1)[1] if ":" in agent else ""


def actor(name: str, role: str) -> dict[str, str]:
    """An actor with its entity key where the name says which one it is. A subagent run
    (`claude-code:<agentId>`) is an episode of its agent: the actor is the agent."""
    if name == "operator":
        return {"name": name, "key": "self:operator", "role": role}
    if name.startswith(BASE_AGENT):
        agent = name.split(":", 1)[0]
        return {"name": agent, "key": f"agent:{agent}", "role": role}
    return {"name": name, "role": role}


def draft(event: Event, **fields: Any) -> ObservationDraft:
    """A draft observed from one event: its time, provenance and correlation filled in."""
    fields.setdefault("timestamp", occurred_at(event))
    fields.setdefault("event_ids", (str(event["id"]),))
    fields.setdefault("correlation", correlation(event))
    return ObservationDraft(**fields)
