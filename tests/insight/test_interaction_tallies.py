"""Interactions tallied per session, speaker and counterpart: one observation per pair in a
session, each message counted once however it is read (a transcript that grows, a batch
analyzed again, a replay from the raw log), its counts those of its messages one by one."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from insight.analyzers.sentiment import sentiment_of
from insight.analyzers.speech_acts import classify, pair_key, tally_add
from insight.analyzers.text import language_of
from insight.producers.base import NoProgress
from insight.producers.claude_code import ClaudeCodeProducer
from insight.services.analysis import analysis_drain, event_as_dict
from memory.errors import Invalid
from memory.models.events import MemoryEvent
from memory.models.observations import Observation
from memory.services.observation_tallies import observation_tally_many
from memory.services.rebuild import graph_rebuild
from memory.services.retain import retain_drain

pytestmark = pytest.mark.django_db

SESSION = "7acd37a8-2745-4b58-a8a9-46164b22ad9e"
PROJECT = "claude-code-log/real_projects/-Users-dain-workspace-JSSoundRecorder"


def _tallies() -> dict[str, dict[str, Any]]:
    rows = Observation.objects.filter(category="interaction").values_list(
        "dedup_key", "payload_typed", "event_ids", "timestamp", "topic", "sentiment")
    return {key: {"payload": payload, "events": sorted(ids), "first": (at, topic, sentiment),
                  "counted": len(ids)}
            for key, payload, ids, at, topic, sentiment in rows}


def _ingest(root: Path) -> None:
    ClaudeCodeProducer(roots=[root]).run(progress=NoProgress())


def _from_the_messages(event_ids: list[str]) -> dict[str, Any]:
    """A tally's counts worked out from its messages one by one, as the per-message
    observations had them."""
    acts: Counter[str] = Counter()
    sentiments: Counter[str] = Counter()
    for event in MemoryEvent.objects.filter(id__in=event_ids):
        message = event_as_dict(event)["payload"]["message"]
        content = message["content"]
        text = content if isinstance(content, str) else "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
        language = language_of(text)
        acts[classify(text, language)[0]] += 1
        sentiments[sentiment_of(text, language)[0]] += 1
    return {"act_counts": dict(acts), "sentiments": dict(sentiments)}


@pytest.mark.fixtures
def test_a_growing_session_is_tallied_once_per_pair_as_a_replay_tallies_it(
        shared_fixtures: Path, tmp_path: Path) -> None:
    source = shared_fixtures / "claude-code" / PROJECT
    staging = tmp_path / "projects" / "-Users-dain-workspace-JSSoundRecorder"
    staging.mkdir(parents=True)
    lines = (source / f"{SESSION}.jsonl").read_bytes().splitlines(keepends=True)
    transcript = staging / f"{SESSION}.jsonl"
    transcript.write_bytes(b"".join(lines[:90]))
    _ingest(tmp_path / "projects")
    analysis_drain(batch_size=13)
    retain_drain(embed=False)
    early = _tallies()
    with transcript.open("ab") as fh:  # the session goes on
        fh.write(b"".join(lines[90:]))
    _ingest(tmp_path / "projects")
    analysis_drain(batch_size=13)
    analysis_drain(restart=True, batch_size=50)  # every batch read again, other boundaries
    retain_drain(embed=False)
    grown = _tallies()

    assert set(early) == set(grown) and len(grown) == 2  # operator <-> agent, both ways
    for key, tally in grown.items():
        # The observation's own time, topic and sentiment stay its first message's.
        assert tally["first"] == early[key]["first"]
        assert tally["counted"] == len(tally["events"]) == tally["payload"]["messages"]
        assert tally["counted"] > early[key]["counted"]
        expected = _from_the_messages(tally["events"])
        assert tally["payload"]["act_counts"] == expected["act_counts"]
        assert tally["payload"]["sentiments"] == expected["sentiments"]
    assert graph_rebuild().digest  # the raw log alone, read at once
    assert _tallies() == grown


def _unit(event: str, act: str, *, topic: str = "hello",
          session: str = "s1") -> dict[str, Any]:
    return {
        "source": "insight:speech_acts", "category": "interaction",
        "timestamp": "2026-04-01T10:00:00Z", "target_namespace": "agent:claude-code:relationship",
        "topic": topic, "actors": [{"name": "operator", "key": "self:operator", "role": "speaker"}],
        "sentiment": "neutral", "sentiment_score": 0.0,
        "payload_typed": {"act": act, "speaker": "operator", "counterpart": "claude-code",
                          "language": "en", "messages": 1, "chars": 5, "act_counts": {act: 1},
                          "sentiments": {"neutral": 1}, "languages": {"en": 1}},
        "correlation": {"session": session, "thread": "", "parent": ""},
        "event_ids": [event], "dedup_key": pair_key(session, "operator", "claude-code"),
    }


def test_a_unit_read_again_is_not_counted_again() -> None:
    first = observation_tally_many(units=[_unit("e1", "directive"), _unit("e2", "directive")],
                                   add=tally_add)
    again = observation_tally_many(units=[_unit("e2", "directive"), _unit("e3", "expressive"),
                                          _unit("e3", "expressive")], add=tally_add)
    assert [r.created for r in first] == [True, False]
    assert [r.created for r in again] == [False, False, False]
    assert {r.id for r in first + again} == {first[0].id}
    (tally,) = Observation.objects.filter(category="interaction")
    assert tally.event_ids == ["e1", "e2", "e3"]
    assert (tally.payload_typed["messages"], tally.payload_typed["act_counts"],
            tally.payload_typed["act"]) == (3, {"directive": 2, "expressive": 1}, "directive")
    assert tally.status == "pending"  # retained once, as the pair it is


def test_a_tally_keeps_no_secret_and_takes_one_event_per_unit() -> None:
    secret = "sk-ant-api03-" + "x" * 40
    observation_tally_many(units=[_unit("e1", "directive", topic=f"my key is {secret}")],
                           add=tally_add)
    stored = Observation.objects.get(category="interaction")
    assert secret not in stored.topic and "[REDACTED" in stored.topic
    two = _unit("e2", "directive") | {"event_ids": ["e2", "e3"]}
    with pytest.raises(Invalid) as refused:
        observation_tally_many(units=[_unit("e4", "directive"), two], add=tally_add)
    assert set(refused.value.fields["observations"]) == {"1"}
    assert Observation.objects.get().event_ids == ["e1"]  # all or none


def test_a_later_unit_of_a_pair_is_checked_for_its_event_and_payload() -> None:
    secret = "sk-ant-api03-" + "y" * 40
    bad = _unit("e2", "directive")
    bad["payload_typed"] = {**bad["payload_typed"], "messages": "two"}
    with pytest.raises(Invalid) as refused:
        observation_tally_many(units=[_unit("e1", "directive"), bad, _unit("e3", "directive")],
                               add=tally_add)
    assert refused.value.fields["observations"] == {
        "1": {"payload_typed": {"messages": "Must be an integer."}}}
    assert not Observation.objects.exists()  # all or none
    leaky = _unit("e2", "directive")
    leaky["payload_typed"] = {**leaky["payload_typed"], "act_counts": {secret: 1}}
    observation_tally_many(units=[_unit("e1", "directive"), leaky], add=tally_add)
    (tally,) = Observation.objects.filter(category="interaction")
    assert tally.event_ids == ["e1", "e2"] and tally.payload_typed["messages"] == 2
    assert secret not in str(tally.payload_typed)
