"""Graphs built by hand for the detectors' tests: raw events that carry the project and the
session, observations tied to them through the real contract, retained by the Retain Job."""

from __future__ import annotations

import hashlib
import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from memory.services.events import event_append_many
from memory.services.observations import observation_submit_many
from memory.services.retain import retain_drain

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SOURCE = "test-sessions"
_n = itertools.count(1)
AGENT = {"name": "claude-code", "key": "agent:claude-code", "role": "agent"}
OPERATOR = {"name": "operator", "key": "self:operator", "role": "speaker"}


def event(*, session: str, project: str, cwd: str, at: datetime,
          payload: dict[str, Any] | None = None, subtype: str = "user.tool_result") -> str:
    n = next(_n)
    (result,) = event_append_many(source=SOURCE, events=[{
        "source_id": f"{session}:{n}", "type": "test", "subtype": subtype, "occurred_at": at,
        "project": project, "correlation": {"session": session},
        "payload": {"cwd": cwd, **(payload or {})}}])
    return result.id


def observation(category: str, target: str, *, session: str, event_id: str, at: datetime,
                payload: dict[str, Any], actors: tuple[dict[str, str], ...] = (),
                topic: str = "", sentiment: str = "neutral") -> dict[str, Any]:
    n = next(_n)
    return {"source": "test", "category": category, "target_namespace": target,
            "timestamp": at, "topic": topic or category, "actors": list(actors),
            "payload_typed": payload, "sentiment": sentiment, "dedup_key": f"act:{n}",
            "event_ids": [event_id], "correlation": {"session": session, "thread": "",
                                                      "parent": ""}}


def tool_errors(*, sessions: int, project: str = "shop", cwd: str = "/home/op/shop",
                tool: str = "Edit", message: str = "file has not been read yet",
                start: datetime = T0, prefix: str = "s") -> list[dict[str, Any]]:
    signature = hashlib.sha256(f"{tool}\n{message}".encode()).hexdigest()[:16]
    out = []
    for i in range(sessions):
        at = start + timedelta(hours=i)
        session = f"{prefix}{i}"
        eid = event(session=session, project=project, cwd=cwd, at=at)
        out.append(observation(
            "tool_error", "agent:claude-code:rc", session=session, event_id=eid, at=at,
            payload={"tool": tool, "signature": signature, "normalized": message,
                     "message": message}, actors=(AGENT, {"name": tool, "role": "tool"}),
            topic=f"{tool}: {message}", sentiment="negative"))
    return out


def submit(observations: list[dict[str, Any]]) -> None:
    observation_submit_many(observations=observations)
    retain_drain(embed=False)
