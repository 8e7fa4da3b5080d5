"""Spoken rules through the whole pipeline (Layer 1, the analyzers, the Retain Job): a fact
with its polarity, its scope and its provenance on the instruction it concerns, which the
conflict detection sees; a subagent run leaves no entity of its own."""

from __future__ import annotations

from typing import Any

import pytest

from insight.services.analysis import analysis_drain
from memory.models import Conflict, Entity, Fact
from memory.models.events import MemoryEvent
from memory.services.events import event_append_many
from memory.services.retain import retain_drain
from tests.insight.analyzers import factories as f

pytestmark = pytest.mark.django_db

_CONTRACT = ("source_id", "type", "subtype", "occurred_at", "actor", "project", "correlation",
             "payload")
REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected. "
            "The user provided the following reason for the rejection: ")


def _retain(*events: dict[str, Any]) -> None:
    event_append_many(source="claude-code",
                      events=[{k: e[k] for k in _CONTRACT} for e in events])
    analysis_drain()
    retain_drain(embed=False)


def _in(project: str, event: dict[str, Any]) -> dict[str, Any]:
    event["project"] = project
    event["payload"]["cwd"] = f"/home/op/work/{project}"
    return event


def _rejection(reason: str, command: str = "npm install") -> list[dict[str, Any]]:
    call = f.tool_use("Bash", {"command": command}, use_id="toolu_01A")
    return [call, f.tool_result(REJECTED + reason, use_id="toolu_01A", is_error=True,
                                call=call)]


def _facts() -> dict[str, tuple[int, str]]:
    return {key: (polarity, scope) for key, polarity, scope in
            Fact.objects.values_list("entity__key", "polarity", "scope")}


def test_a_rejection_reason_is_a_fact_with_its_scope_and_provenance() -> None:
    events = _rejection("use pnpm")
    _retain(*events)
    assert _facts() == {
        "agent:claude-code:instruction:use-pnpm": (1, "project:cortex"),
        "agent:claude-code:instruction:use-npm": (-1, "project:cortex"),
    }
    fact = Fact.objects.get(entity__key="agent:claude-code:instruction:use-pnpm")
    assert fact.event_ids == [str(_stored_id(events[1]))]


def _stored_id(event: dict[str, Any]) -> str:
    return str(MemoryEvent.objects.get(source_id=event["source_id"]).id)


def test_a_french_rejection_contradicts_an_english_rule_and_conflict_detection_sees_it() -> None:
    _retain(f.prompt("Always use npm."), *_rejection("utilise pnpm plutôt que npm"))
    npm = Entity.objects.get(key="agent:claude-code:instruction:use-npm")
    assert sorted(npm.facts.values_list("polarity", flat=True)) == [-1, 1]
    assert Conflict.objects.filter(entity=npm).count() == 1


def test_opposite_rules_said_in_two_projects_keep_their_scopes_and_are_no_conflict() -> None:
    _retain(_in("billing", f.prompt("Always use npm.")), _in("web", f.prompt("Never use npm.")),
            _in("web", f.prompt("Always use pnpm in all projects.")))
    npm = Entity.objects.get(key="agent:claude-code:instruction:use-npm")
    assert sorted(npm.facts.values_list("scope", flat=True)) == ["project:billing",
                                                                  "project:web"]
    # Each holds in its own project: nothing contradicts anything (issue 25).
    assert Conflict.objects.filter(entity=npm).count() == 0
    assert _facts()["agent:claude-code:instruction:use-pnpm"] == (1, "global (in all projects)")


def test_a_rule_said_again_in_another_project_holds_everywhere() -> None:
    _retain(_in("billing", f.prompt("Always use uv.")), _in("billing", f.prompt("Always use uv.")))
    assert _facts()["agent:claude-code:instruction:use-uv"] == (1, "project:billing")
    _retain(_in("web", f.prompt("Utilise toujours uv.")))
    assert _facts()["agent:claude-code:instruction:use-uv"] == (1, "global")
    assert Fact.objects.get(entity__key="agent:claude-code:instruction:use-uv").evidence_count == 3


def test_an_interrupt_then_an_instruction_is_a_fact() -> None:
    stop = f.interrupt()
    _retain(stop, f.prompt("non, utilise httpx", parent=stop["source_id"]))
    assert _facts() == {"agent:claude-code:instruction:use-httpx": (1, "project:cortex")}


def test_a_subagent_run_is_an_episode_of_its_agent_not_an_entity() -> None:
    _retain(
        f.prompt("Explore the repository.", thread="a36efb2a1231c41e2"),
        f.assistant_text("Found three modules.", actor="claude-code:a36efb2a1231c41e2",
                         thread="a36efb2a1231c41e2"),
        f.assistant_text("Done.", actor="claude-code:a2271d1", thread="a2271d1"),
    )
    keys = set(Entity.objects.values_list("key", flat=True))
    assert "agent:claude-code" in keys
    assert not [key for key in keys if "a36efb2a" in key or "a2271d1" in key]


def test_an_interrupt_in_the_previous_batch_still_makes_the_next_prompt_a_correction() -> None:
    stop = f.interrupt()
    event_append_many(source="claude-code", events=[{k: stop[k] for k in _CONTRACT}])
    analysis_drain()
    said = f.prompt("use httpx", parent=stop["source_id"])
    _retain(said)
    assert _facts() == {"agent:claude-code:instruction:use-httpx": (1, "project:cortex")}
