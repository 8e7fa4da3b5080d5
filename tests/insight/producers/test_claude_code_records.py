"""Records to events: subtypes, actors, correlation, ids and size limits (the event contract)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from insight.producers.claude_code_records import FileContext, record_event

from .helpers import CWD, SESSION, record


def _ctx(**kwargs: Any) -> FileContext:
    base: dict[str, Any] = {"rel_path": f"-enc/{SESSION}.jsonl", "kind": "main",
                            "session": SESSION, "parent_session": "", "project": "shop-api",
                            "cwd": CWD, "mtime_iso": "2026-01-01T00:00:00+00:00"}
    return FileContext(**{**base, **kwargs})


def _event(rec: dict[str, Any], ctx: FileContext | None = None, offset: int = 0) -> dict[str, Any]:
    raw = json.dumps(rec).encode()
    return record_event(rec, raw, ctx=ctx or _ctx(), offset=offset, truncations=[])


def _user(content: Any, **extra: Any) -> dict[str, Any]:
    return record("u1", **extra) | {"message": {"role": "user", "content": content}}


def test_user_records_by_kind() -> None:
    assert _event(_user("always use uv"))["subtype"] == "user.prompt"
    assert _event(_user([{"type": "text", "text": "fix it"}]))["subtype"] == "user.prompt"
    result = [{"type": "tool_result", "tool_use_id": "t", "content": "Exit code 1",
               "is_error": True}]
    event = _event(_user(result))
    assert event["subtype"] == "user.tool_result" and event["actor"] == "tool"
    assert event["payload"]["message"]["content"][0]["is_error"] is True
    interrupted = _event(_user([{"type": "text", "text": "[Request interrupted by user]"}]))
    assert interrupted["subtype"] == "user.interrupt" and interrupted["actor"] == "operator"
    for_tool = _event(_user("[Request interrupted by user for tool use]"))
    assert for_tool["subtype"] == "user.interrupt"
    assert _event(_user("<command-name>/model</command-name>"))["subtype"] == "user.meta"
    assert _event(_user("anything", isMeta=True))["subtype"] == "user.meta"
    summary = _user("This session is being continued from a previous conversation...",
                    isCompactSummary=True)
    assert _event(summary)["subtype"] == "user.meta"


def test_assistant_records_by_first_block_and_their_turn() -> None:
    rec = record("a1", kind="assistant")
    event = _event(rec)
    assert event["subtype"] == "assistant.text" and event["actor"] == "claude-code"
    assert event["payload"]["_cortex"]["turn"] == "msg_1:req_1"
    rec["message"]["content"] = [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]
    assert _event(rec)["subtype"] == "assistant.tool_use"
    rec["message"]["content"] = [{"type": "thinking", "thinking": "", "signature": "x"}]
    assert _event(rec)["subtype"] == "assistant.thinking"
    rec["message"]["content"] = [{"type": "server_tool_use"}]
    assert _event(rec)["subtype"] == "assistant.server_tool_use"


def test_system_and_other_types_pass_through() -> None:
    assert _event(record("s1", kind="system", subtype="compact_boundary"))["subtype"] == (
        "system.compact_boundary")
    assert _event(record("s2", kind="system"))["subtype"] == "system.event"
    assert _event(record("p1", kind="progress"))["subtype"] == "progress"
    assert _event(record("x1", kind="brand-new-type"))["subtype"] == "brand-new-type"
    assert _event({"summary": "t", "leafUuid": "x"})["subtype"] == "untyped"


def test_the_envelope_maps_to_the_contract() -> None:
    rec = record("u9", parentUuid="u8")
    event = _event(rec, offset=1234)
    assert event["source_id"] == "u9"
    assert event["type"] == "claude-code"
    assert event["project"] == "shop-api"
    assert event["occurred_at"] == rec["timestamp"]
    assert event["correlation"] == {"session": SESSION, "thread": "", "parent": "u8"}
    assert event["payload"]["_cortex"] == {"file": f"-enc/{SESSION}.jsonl", "offset": 1234}
    assert event["payload"]["cwd"] == CWD


def test_records_without_uuid_get_a_deterministic_id() -> None:
    rec = {"type": "summary", "summary": "Fix the tests", "leafUuid": "x"}
    raw = json.dumps(rec).encode()
    digest = hashlib.sha256(raw).hexdigest()[:32]
    event = record_event(rec, raw, ctx=_ctx(), offset=0, truncations=[])
    assert event["source_id"] == f"{SESSION}:summary:{digest}"
    assert record_event(rec, raw, ctx=_ctx(session=""), offset=0,
                        truncations=[])["source_id"] == f"summary:{digest}"


def test_a_missing_timestamp_takes_the_previous_one_then_the_file_time() -> None:
    ctx = _ctx()
    assert _event({"type": "summary"}, ctx)["occurred_at"] == "2026-01-01T00:00:00+00:00"
    _event(record("u1"), ctx)
    assert _event({"type": "summary"}, ctx)["occurred_at"] == record("u1")["timestamp"]
    assert _event(record("u2", timestamp="yesterday"), ctx)["occurred_at"] == (
        record("u1")["timestamp"])


def test_subagent_records_link_to_the_parent_session() -> None:
    ctx = _ctx(kind="subagent", rel_path="-enc/s/subagents/agent-a1.jsonl", parent_session=SESSION)
    task = _event(record("u1", isSidechain=True, agentId="a1", text="Find callers"), ctx)
    assert task["actor"] == "claude-code"  # the parent agent gave the task, not the operator
    assert task["correlation"]["thread"] == "a1"
    answer = _event(record("a2", kind="assistant", isSidechain=True, agentId="a1"), ctx)
    assert answer["actor"] == "claude-code:a1"
    assert answer["payload"]["_cortex"]["parent_session"] == SESSION


def test_strings_over_64_kib_are_cut_with_size_and_hash() -> None:
    big = "é" * 40_000  # 80,000 bytes in UTF-8
    rec = record("u1", text=big)
    cuts: list[int] = []
    event = record_event(rec, json.dumps(rec).encode(), ctx=_ctx(), offset=0, truncations=cuts)
    cut = event["payload"]["message"]["content"]
    assert cut["_truncated"] is True and cut["size"] == 80_000
    assert cut["sha256"] == hashlib.sha256(big.encode()).hexdigest()
    assert len(cut["head"].encode()) <= 64 * 1024 and big.startswith(cut["head"])
    assert cuts == [80_000]
    assert rec["message"]["content"] == big  # the record itself is left alone


def test_many_medium_strings_are_cut_harder_to_fit_the_payload_limit() -> None:
    rec = record("u1") | {"blocks": ["x" * 60_000 for _ in range(30)]}
    raw = json.dumps(rec).encode()
    event = record_event(rec, raw, ctx=_ctx(), offset=0, truncations=[])
    assert len(json.dumps(event["payload"])) < 1024 * 1024
