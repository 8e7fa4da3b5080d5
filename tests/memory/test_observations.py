"""observation_submit(_many): schema per category, provenance, sanitizing, idempotency;
the interaction profile and hot files selectors."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any

import pytest

from memory import observation_schemas
from memory.errors import Invalid, TooLarge
from memory.models.observations import Observation, ObservationStatus
from memory.observation_schemas import PayloadField, observation_schema_register
from memory.selectors.observations import commit_hot_files, interaction_profile
from memory.services.events import event_append_many
from memory.services.observations import observation_submit, observation_submit_many

pytestmark = pytest.mark.django_db

WHEN = datetime(2025, 6, 1, 10, 0, tzinfo=UTC)
_messages = itertools.count()
SECRET = "ghp_" + "a1B2" * 9


def _instruction(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "source": "insight:instructions", "category": "instruction", "timestamp": WHEN,
        "target_namespace": "agent:claude-code:instruction", "topic": "never use requests",
        "actors": [{"name": "operator", "key": "self:operator", "role": "speaker"}],
        "sentiment": "neutral", "sentiment_score": 0.0,
        "payload_typed": {"claim": "use requests", "subject": "requests",
                          "polarity": "negative"},
        "correlation": {"session": "s1", "thread": "", "parent": "p1"},
    }
    return data | overrides


def _invalid(**overrides: Any) -> dict[str, Any]:
    with pytest.raises(Invalid) as caught:
        observation_submit_many(observations=[_instruction(**overrides)])
    assert Observation.objects.count() == 0
    return dict(caught.value.fields["observations"]["0"])


def test_an_observation_is_stored_pending_with_its_provenance() -> None:
    (event,) = event_append_many(source="claude-code", events=[{"source_id": "u1"}])
    result = observation_submit(**_instruction(event_ids=[event.id]))
    stored = Observation.objects.get()
    assert (result.id, result.created, result.status) == (stored.id, True, "pending")
    assert stored.status == ObservationStatus.PENDING and stored.event_ids == [event.id]
    assert stored.correlation == {"session": "s1", "thread": "", "parent": "p1"}
    assert (stored.schema_fit, stored.attempts, stored.retained_at) == (None, 0, None)
    assert len(stored.id) == 26


def test_the_same_observation_twice_is_stored_once() -> None:
    first = observation_submit(**_instruction())
    again = observation_submit(**_instruction())
    assert (again.id, again.created) == (first.id, False)
    assert Observation.objects.count() == 1


def test_the_producers_dedup_key_decides_what_is_the_same() -> None:
    one = observation_submit(**_instruction(dedup_key="e1:claim"))
    same = observation_submit(**_instruction(dedup_key="e1:claim", topic="other words"))
    other_source = observation_submit(**_instruction(dedup_key="e1:claim", source="api:bot"))
    assert same.id == one.id and not same.created
    assert other_source.created
    without_key = observation_submit(**_instruction(topic="other words"))
    assert without_key.created
    assert Observation.objects.count() == 3


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"category": "gossip"}, "category"),
        ({"timestamp": "2025-06-01T10:00:00"}, "timestamp"),
        ({"timestamp": "yesterday"}, "timestamp"),
        ({"target_namespace": "Agent claude"}, "target_namespace"),
        ({"target_namespace": ""}, "target_namespace"),
        ({"sentiment": "angry"}, "sentiment"),
        ({"sentiment_score": 3}, "sentiment_score"),
        ({"actors": [{"name": "x"}]}, "actors"),
        ({"actors": "operator"}, "actors"),
        ({"event_ids": ["x" * 40]}, "event_ids"),
        ({"topic": "t" * 301}, "topic"),
        ({"correlation": {"session": 1}}, "correlation"),
        ({"actors": 5}, "actors"),
        ({"event_ids": 5}, "event_ids"),
        ({"payload_typed": {"claim": "c", "subject": "s", "polarity": "negative", "n": 10**30}},
         "payload_typed"),
    ],
)
def test_bad_input_names_the_field_and_writes_nothing(overrides: dict[str, Any],
                                                      field: str) -> None:
    assert field in _invalid(**overrides)


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"subject": "requests", "polarity": "negative"}, "claim"),
        ({"claim": "use requests", "subject": "requests", "polarity": "maybe"}, "polarity"),
        ({"claim": "", "subject": "requests", "polarity": "negative"}, "claim"),
        ({"claim": 3, "subject": "requests", "polarity": "negative"}, "claim"),
    ],
)
def test_payload_typed_is_checked_against_the_categorys_schema(payload: dict[str, Any],
                                                              field: str) -> None:
    assert field in _invalid(payload_typed=payload)["payload_typed"]


def test_provenance_must_point_at_stored_events() -> None:
    assert "event_ids" in _invalid(event_ids=["01JUNKNOWNEVENT0000000000"])


def test_a_batch_is_all_or_none_and_names_the_bad_index() -> None:
    with pytest.raises(Invalid) as caught:
        observation_submit_many(observations=[_instruction(), _instruction(category="x")])
    assert set(caught.value.fields["observations"]) == {"1"}
    assert Observation.objects.count() == 0


def test_duplicates_inside_one_batch_are_one_row() -> None:
    results = observation_submit_many(observations=[_instruction(), _instruction()])
    assert [r.created for r in results] == [True, False]
    assert results[0].id == results[1].id


def test_secrets_never_reach_the_database() -> None:
    observation_submit(**_instruction(topic=f"token {SECRET}", payload_typed={
        "claim": "use requests", "subject": "requests", "polarity": "negative",
        "text": f"the key is {SECRET}"}))
    stored = Observation.objects.get()
    assert SECRET not in stored.topic and SECRET not in str(stored.payload_typed)
    assert "[REDACTED" in stored.topic


def test_an_oversized_payload_is_refused_as_too_large() -> None:
    with pytest.raises(TooLarge):
        observation_submit(**_instruction(payload_typed={
            "claim": "c", "subject": "s", "polarity": "positive", "text": "x" * 1000,
            "blob": "y" * 70_000}))


def test_a_new_category_is_valid_once_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(observation_schemas, "_registry", dict(observation_schemas._registry))
    assert "category" in _invalid(category="meeting", payload_typed={"room": "A"})
    observation_schema_register("meeting", {"room": PayloadField(str)})
    assert observation_submit(**_instruction(category="meeting",
                                             payload_typed={"room": "A"})).created


def _interaction(act: str, speaker: str, counterpart: str, sentiment: str = "neutral") -> None:
    observation_submit(**_instruction(
        source="insight:speech_acts", category="interaction",
        target_namespace="agent:claude-code:relationship", sentiment=sentiment,
        topic=f"message {next(_messages)}",
        payload_typed={"act": act, "speaker": speaker, "counterpart": counterpart}))


def test_the_interaction_profile_answers_mostly_directive_with_x_expressive_with_y() -> None:
    for act in ["directive", "directive", "directive", "expressive"]:
        _interaction(act, "operator", "claude-code")
    for act in ["expressive", "expressive", "assertive"]:
        _interaction(act, "operator", "anya", sentiment="positive")
    _interaction("commissive", "claude-code", "operator")

    agent = interaction_profile(counterpart="claude-code")
    assert (agent.total, agent.dominant) == (4, "directive")
    assert agent.acts == {"assertive": 0, "directive": 3, "commissive": 0, "expressive": 1,
                          "declarative": 0}
    assert agent.shares["directive"] == 0.75
    person = interaction_profile(counterpart="anya")
    assert (person.dominant, person.sentiments) == ("expressive", {"positive": 3})
    assert interaction_profile(counterpart="anya", speaker="claude-code").total == 0
    nobody = interaction_profile(counterpart="nobody")
    assert (nobody.total, nobody.dominant) == (0, None)


def test_hot_files_count_the_commits_that_touched_them() -> None:
    def commit(sha: str, day: int, files: list[tuple[str, int, int]]) -> None:
        observation_submit(**_instruction(
            source="insight:git_history", category="commit", target_namespace="world:project",
            timestamp=datetime(2025, 6, day, tzinfo=UTC),
            payload_typed={"sha": sha, "repo": "cortex", "kind": "fix", "author": "anya",
                           "files": [{"path": p, "added": a, "removed": r}
                                     for p, a, r in files]}))
    commit("a", 1, [("x.py", 1, 1), ("y.py", 5, 0)])
    commit("b", 2, [("x.py", 2, 0)])
    commit("c", 20, [("x.py", 9, 9), ("z.py", 1, 0)])
    hot = commit_hot_files(repo="cortex", since=datetime(2025, 6, 1, tzinfo=UTC),
                           until=datetime(2025, 6, 10, tzinfo=UTC))
    assert [(h.path, h.commits, h.added, h.removed) for h in hot] == [
        ("x.py", 2, 3, 1), ("y.py", 1, 5, 0)]
