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
          payload: dict[str, Any] | None = None, subtype: str = "user.tool_result",
          actor: str = "") -> str:
    n = next(_n)
    (result,) = event_append_many(source=SOURCE, events=[{
        "source_id": f"{session}:{n}", "type": "test", "subtype": subtype, "occurred_at": at,
        **({"actor": actor} if actor else {}),
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


SPACING = timedelta(hours=10)  # three sessions cover two days before helpers.NOW


def tool_errors(*, sessions: int, project: str = "shop", cwd: str = "/home/op/shop",
                tool: str = "Edit", message: str = "file has not been read yet",
                start: datetime = T0, prefix: str = "s", command: str = "",
                then: tuple[tuple[str, str], ...] | None = None,
                spacing: timedelta = SPACING, reimports: int = 0) -> list[dict[str, Any]]:
    """The error in each session, then the agent's next steps `then` (tool, Bash command),
    each succeeding: by default Read, then the failing step again (recovered). `reimports`
    more sessions are the first imported again under other ids (the same tool calls, at the
    same times)."""
    signature = hashlib.sha256(f"{tool}\n{message}".encode()).hexdigest()[:16]
    after = ((("Read", ""), (tool, command)) if then is None else then)
    out = []
    for i in range(sessions + reimports):
        at = start + spacing * (i if i < sessions else 0)
        session = f"{prefix}{i}"
        eid = event(session=session, project=project, cwd=cwd, at=at)
        uses(session=session, project=project, cwd=cwd, at=at, steps=after,
             work=f"{prefix}0" if i >= sessions else "")
        payload = {"tool": tool, "signature": signature, "normalized": message,
                   "message": message}
        if command:
            payload["command"] = command
        out.append(observation(
            "tool_error", "agent:claude-code:rc", session=session, event_id=eid, at=at,
            payload=payload, actors=(AGENT, {"name": tool, "role": "tool"}),
            topic=f"{tool}: {message}", sentiment="negative"))
    return out


def uses(*, session: str, project: str, cwd: str, at: datetime,
         steps: tuple[tuple[str, str], ...], failed: tuple[bool, ...] = (),
         work: str = "") -> None:
    """Tool uses after `at` in the session, a minute apart, each with its result (failed
    where `failed` says so). Each session's work is its own (its files, what it says its
    commands do), unless given one `work` name: then sessions of one are copies."""
    work = work or session
    for j, (tool, command) in enumerate(steps):
        use_id = f"toolu_{session}_{at:%H%M}_{j}"
        when = at + timedelta(minutes=j + 1)
        block = {"type": "tool_use", "id": use_id, "name": tool,
                 "input": ({"command": command, "description": f"step {j} for {work}"}
                           if command else {"file_path": f"src/{work}.py"})}
        event(session=session, project=project, cwd=cwd, at=when, subtype="assistant.tool_use",
              payload={"message": {"role": "assistant", "content": [block]}})
        bad = j < len(failed) and failed[j]
        result = {"type": "tool_result", "tool_use_id": use_id, "is_error": bad,
                  "content": "Exit code 1" if bad else "ok"}
        event(session=session, project=project, cwd=cwd, at=when + timedelta(seconds=30),
              payload={"message": {"role": "user", "content": [result]}})


def submit(observations: list[dict[str, Any]]) -> None:
    observation_submit_many(observations=observations)
    retain_drain(embed=False)


def _spread(sessions: int, prefix: str, start: datetime, project: str,
            cwd: str) -> list[tuple[str, str, datetime]]:
    out = []
    for i in range(sessions):
        at = start + timedelta(hours=i)
        session = f"{prefix}{i}"
        out.append((session, event(session=session, project=project, cwd=cwd, at=at), at))
    return out


def grants(*, sessions: int, rule: str = "Bash(npm test:*)", tool: str = "Bash",
           decision: str = "granted", project: str = "shop", cwd: str = "/home/op/shop",
           prefix: str = "g", start: datetime = T0) -> list[dict[str, Any]]:
    return [observation(
        "permission_request", "agent:claude-code:skill", session=s, event_id=e, at=at,
        payload={"tool": tool, "pattern": rule, "decision": decision, "inferred": True},
        actors=({**AGENT, "role": "requester"}, {**OPERATOR, "role": "decider"}),
        topic=f"{decision} {rule}") for s, e, at in _spread(sessions, prefix, start, project, cwd)]


def instructions(*, sessions: int, claim: str = "use pnpm", polarity: str = "positive",
                 text: str = "Always use pnpm here.", project: str = "shop",
                 cwd: str = "/home/op/shop", prefix: str = "i",
                 start: datetime = T0) -> list[dict[str, Any]]:
    return [observation(
        "instruction", "agent:claude-code:instruction", session=s, event_id=e, at=at,
        payload={"claim": claim, "subject": claim.split(" ", 1)[-1], "polarity": polarity,
                 "text": text, "language": "en", "agent": "claude-code"},
        actors=(OPERATOR, {**AGENT, "role": "addressee"}), topic=text)
        for s, e, at in _spread(sessions, prefix, start, project, cwd)]


def corrections(*, sessions: int, text: str = "use pnpm, not npm", project: str = "shop",
                cwd: str = "/home/op/shop", prefix: str = "c",
                start: datetime = T0) -> list[dict[str, Any]]:
    return [observation(
        "correction", "agent:claude-code:failure-mode", session=s, event_id=e, at=at,
        payload={"kind": "rejection", "text": text, "language": "en"},
        actors=({**OPERATOR, "role": "corrector"}, {**AGENT, "role": "corrected"}),
        topic=f"rejection: {text}", sentiment="negative")
        for s, e, at in _spread(sessions, prefix, start, project, cwd)]


def interactions(*, acts: list[str], sessions: int = 4, project: str = "shop",
                 cwd: str = "/home/op/shop", prefix: str = "m",
                 start: datetime = T0) -> list[dict[str, Any]]:
    places = _spread(sessions, prefix, start, project, cwd)
    out = []
    for i, act in enumerate(acts):
        session, eid, at = places[i % sessions]
        out.append(observation(
            "interaction", "agent:claude-code:relationship", session=session, event_id=eid,
            at=at + timedelta(seconds=i), topic=f"message {i}",
            payload={"act": act, "acts": {act: 1}, "speaker": "operator",
                     "counterpart": "claude-code", "language": "en", "chars": 40},
            actors=(OPERATOR, {**AGENT, "role": "counterpart"})))
    return out


def prompt(*, session: str, text: str, at: datetime, project: str = "shop",
           cwd: str = "/home/op/shop") -> str:
    """The operator's prompt in a session."""
    return event(session=session, project=project, cwd=cwd, at=at, subtype="user.prompt",
                 actor="operator",
                 payload={"message": {"role": "user", "content": text}})


# One kind of task asked in distinct sessions (each about its own file).
FIX_PROMPTS = tuple(f"Fix the failing test in tests/test_{name}.py."
                    for name in ("billing", "users", "auth", "export", "search", "orders"))


def tool_use_sessions(*, sessions: int, steps: list[tuple[str, str]], project: str = "shop",
                      cwd: str = "/home/op/shop", prefix: str = "p", start: datetime = T0,
                      prompts: tuple[str, ...] = FIX_PROMPTS, reimports: int = 0) -> None:
    """Raw `assistant.tool_use` events: the same steps in each session, started by the
    operator's prompts (the i-th session by prompts[i % len(prompts)]; none when empty), an
    hour apart. `reimports` more sessions are the first imported again under other ids (its
    prompt and tool calls, at its times)."""
    for i in range(sessions + reimports):
        first = i >= sessions
        session, at = f"{prefix}{i}", start + timedelta(hours=0 if first else i)
        if prompts:
            prompt(session=session, text=prompts[0 if first else i % len(prompts)],
                   at=at - timedelta(minutes=1), project=project, cwd=cwd)
        for j, (tool, command) in enumerate(steps):
            block = {"type": "tool_use", "id": f"toolu_{i}_{j}", "name": tool,
                     "input": {"command": command} if command else {"file_path": "a.py"}}
            event(session=session, project=project, cwd=cwd, at=at + timedelta(minutes=j),
                  subtype="assistant.tool_use",
                  payload={"message": {"role": "assistant", "content": [block]}})
