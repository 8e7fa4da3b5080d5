"""Idempotency, canonical order, and what happens to observations nothing can retain."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db import DataError
from django.db.models import F

from memory.config import config_get
from memory.decay.formulas import EntityState, entity_strength
from memory.models import Entity, Observation, RegenerationRequest
from memory.models.events import MemoryEvent
from memory.observation_schemas import PayloadField, observation_schema_register
from memory.retain.extraction import Extraction, ObservationView
from memory.retain.registry import handler_register, handler_unregister
from memory.selectors.graph import graph_digest
from memory.services import retain_chunk, retain_flush
from memory.services.events import event_append_many
from memory.services.locks import retain_lock
from memory.services.retain import retain_batch_run, retain_order_assign, retain_run
from memory.services.review import review_counts
from tests.retain.conftest import retain, retain_config
from tests.retain.factories import T0, commit, obs, submit, synthetic

pytestmark = pytest.mark.usefixtures("synced")


def test_an_observation_retained_twice_changes_nothing_the_second_time() -> None:
    ids = submit(*synthetic(60))
    retain()
    digest = graph_digest()
    counts = list(Entity.objects.order_by("key").values_list("key", "retrieval_count"))
    assert retain_batch_run(ids=ids).processed == 0
    assert retain().processed == 0
    assert graph_digest() == digest
    assert list(Entity.objects.order_by("key").values_list("key", "retrieval_count")) == counts


def test_chunk_boundaries_do_not_change_the_graph(swap_config: Any) -> None:
    submit(*synthetic(120, seed=9))
    retain()
    whole = graph_digest()
    from memory.services.rebuild import graph_clear

    graph_clear()
    swap_config(retain_config(chunk_size=7))
    retain()
    assert graph_digest() == whole


def test_a_task_retains_its_observations_and_every_pending_one_before_them() -> None:
    ids = submit(*[commit("Alice Martin", "cortex", f"feat: {i}", at=T0 + timedelta(hours=i))
                   for i in range(6)])
    report = retain_batch_run(ids=[ids[3]])
    assert report.processed == 4
    statuses = [Observation.objects.get(pk=i).status for i in ids]
    assert statuses == ["retained"] * 4 + ["pending"] * 2


def test_reinforcement_uses_the_observations_time_not_the_clock() -> None:
    submit(commit("Alice Martin", "cortex", "feat: b", at=T0 + timedelta(days=3)),
           commit("Alice Martin", "cortex", "feat: a", at=T0))
    retain()
    alice = Entity.objects.get(key="world:person:alice-martin")
    # Observations without events are ordered by their time: created at day 0, recalled at 3.
    assert alice.created_at == T0
    assert alice.last_reinforced_at == T0 + timedelta(days=3) and alice.retrieval_count == 1


@pytest.fixture
def probe_category() -> Iterator[None]:
    observation_schema_register("probe", {"text": PayloadField(str, required=False)})
    yield


def test_an_observation_without_a_handler_is_kept_marked_and_counted(probe_category: None) -> None:
    (observation,) = submit(obs("probe", "world:concept", payload={"text": "?"}))
    report = retain()
    stored = Observation.objects.get(pk=observation)
    assert stored.status == "unhandled" and "no handler" in stored.error
    assert report.chunks.statuses["unhandled"] == 1
    assert review_counts()["unhandled"] == 1


def test_a_handler_bug_fails_its_observation_only(probe_category: None) -> None:
    def broken(view: ObservationView) -> Extraction:
        raise KeyError("oops")

    handler_register("probe", "world:concept")(broken)
    try:
        bad, good = submit(obs("probe", "world:concept", payload={"text": "?"}),
                           commit("Alice Martin", "cortex", "feat"))
        retain()
    finally:
        handler_unregister("probe", "world:concept")
    assert Observation.objects.get(pk=bad).status == "failed"
    assert "KeyError" in Observation.objects.get(pk=bad).error
    assert Observation.objects.get(pk=good).status == "retained"


def test_a_namespace_outside_the_taxonomy_fails_with_a_clear_error() -> None:
    (observation,) = submit(obs("fact", "world:vehicle", payload={"subject": "Zoe",
                                                                  "text": "Zoe is fast"}))
    retain()
    stored = Observation.objects.get(pk=observation)
    assert stored.status == "failed" and "not in the taxonomy" in stored.error


def test_a_poison_observation_is_retried_alone_then_failed_with_its_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ids = submit(*[commit("Alice Martin", "cortex", f"feat: {i}", at=T0 + timedelta(hours=i))
                   for i in range(5)])
    poison = ids[2]
    original = retain_flush.chunk_flush

    def flush(**kwargs: Any) -> None:
        if any(o.observation_id == poison for o in kwargs["writes"].outcomes):
            raise DataError("value out of range")
        original(**kwargs)

    monkeypatch.setattr(retain_chunk, "chunk_flush", flush)
    with retain_lock():
        report = retain_run(limit=100)
    stored = Observation.objects.get(pk=poison)
    assert stored.status == "failed" and stored.attempts == 3
    assert stored.error.startswith("gave up after 3 attempts: DataError: value out of range")
    others = Observation.objects.exclude(pk=poison)
    assert set(others.values_list("status", flat=True)) == {"retained"}
    assert report.gave_up == 1 and report.processed == 4


def test_new_entities_and_big_moves_ask_for_a_regeneration() -> None:
    submit(commit("Alice Martin", "cortex", "feat", at=T0),
           commit("Alice Martin", "cortex", "fix", at=T0 + timedelta(minutes=1)),
           commit("Alice Martin", "cortex", "docs", at=T0 + timedelta(days=60)))
    retain()
    alice = Entity.objects.get(key="world:person:alice-martin")
    request = RegenerationRequest.objects.get(entity=alice, consumed_at=None)
    # Created (the first), a strength that moved by more than 10% after 60 days (the third);
    # the second, a minute later, moved it by less and asked nothing more.
    assert request.reasons == ["created", "relations", "strength"]
    assert request.requested_at == T0 + timedelta(days=60)


def test_layer_3_consumes_the_regeneration_requests() -> None:
    from memory.services.regeneration import regeneration_consume, regeneration_requests_open

    submit(commit("Alice Martin", "cortex", "feat", at=T0))
    retain()
    requests = regeneration_requests_open()
    assert {r.entity.key for r in requests} == {"world:person:alice-martin",
                                                "world:project:cortex"}
    assert regeneration_consume(request_ids=[r.pk for r in requests]) == 2
    assert regeneration_requests_open() == []
    submit(commit("Alice Martin", "cortex", "fix", at=T0 + timedelta(days=30)))
    retain()
    assert {r.reasons[0] for r in regeneration_requests_open()} == {"strength"}


def test_a_row_changed_between_the_chunks_read_and_its_write_keeps_the_change(
        monkeypatch: pytest.MonkeyPatch, swap_config: Any) -> None:
    """Recalls are increments and the strength they produce is computed from what the row
    holds at the write: a recall or a feedback another writer made meanwhile is kept
    (no headroom: the stored strength is the exact one)."""
    swap_config(retain_config(strength_bound_recalls=0))
    key = "world:person:alice-martin"
    submit(commit("Alice Martin", "cortex", "feat: a", at=T0))
    retain()
    submit(commit("Alice Martin", "cortex", "feat: b", at=T0 + timedelta(days=2)))
    real = retain_flush._entities

    def then_a_feedback(*args: Any) -> None:
        real(*args)
        Entity.objects.filter(key=key).update(retrieval_count=F("retrieval_count") + 5, pos=3)

    monkeypatch.setattr(retain_flush, "_entities", then_a_feedback)
    retain()
    alice = Entity.objects.get(key=key)
    assert (alice.retrieval_count, alice.pos) == (6, 3)
    assert alice.last_reinforced_at == alice.strength_evaluated_at == T0 + timedelta(days=2)
    state = EntityState(base=alice.base, half_life_days=alice.half_life_days,
                        valence=alice.valence, pos=3, retrieval_count=6, route=alice.route,
                        pinned=alice.pinned)
    assert alice.strength == entity_strength(state, last_reinforced_at=T0 + timedelta(days=2),
                                             now=T0 + timedelta(days=2), config=config_get())


def test_a_recall_in_a_chunk_stores_the_strength_it_produces(swap_config: Any) -> None:
    swap_config(retain_config(strength_bound_recalls=0))
    key = "world:person:alice-martin"
    submit(commit("Alice Martin", "cortex", "feat: a", at=T0),
           commit("Alice Martin", "cortex", "feat: b", at=T0 + timedelta(days=1)))
    retain()
    submit(commit("Alice Martin", "cortex", "feat: c", at=T0 + timedelta(days=3)),
           commit("Bruno Dupont", "cortex", "feat: d", at=T0 + timedelta(days=4)))
    retain()
    alice = Entity.objects.get(key=key)
    assert alice.retrieval_count == 2
    # Evaluated at the chunk's latest reinforcement (the project, recalled at day 4).
    assert alice.strength_evaluated_at == T0 + timedelta(days=4)
    state = EntityState(base=alice.base, half_life_days=alice.half_life_days,
                        valence=alice.valence, retrieval_count=2, route=alice.route,
                        pinned=alice.pinned)
    assert alice.strength == entity_strength(state, last_reinforced_at=T0 + timedelta(days=3),
                                             now=T0 + timedelta(days=4), config=config_get())


def test_a_recall_stores_a_bound_with_headroom_and_leaves_one_it_stays_under() -> None:
    """The stored strength is the strength after `strength_bound_recalls` more recalls; a
    recall that stays under it leaves it (and its evaluation time); it bounds the strength
    from above."""
    headroom = config_get().retain.strength_bound_recalls
    assert headroom > 0
    key = "world:person:alice-martin"
    submit(commit("Alice Martin", "cortex", "feat: a", at=T0))
    retain()
    alice = Entity.objects.get(key=key)
    state = EntityState(base=alice.base, half_life_days=alice.half_life_days,
                        valence=alice.valence, retrieval_count=alice.retrieval_count + headroom,
                        route=alice.route, pinned=alice.pinned)
    bound = entity_strength(state, last_reinforced_at=T0, now=T0, config=config_get())
    assert alice.strength == bound
    exact = dataclasses.replace(state, retrieval_count=alice.retrieval_count)
    assert entity_strength(exact, last_reinforced_at=T0, now=T0, config=config_get()) < bound
    submit(commit("Alice Martin", "cortex", "feat: b", at=T0 + timedelta(days=2)))
    retain()
    again = Entity.objects.get(key=key)
    assert again.retrieval_count == alice.retrieval_count + 1
    assert (again.strength, again.strength_evaluated_at) == (bound, alice.strength_evaluated_at)
    now = dataclasses.replace(state, retrieval_count=again.retrieval_count)
    assert again.strength is not None
    assert entity_strength(now, last_reinforced_at=again.last_reinforced_at,
                           now=T0 + timedelta(days=2), config=config_get()) <= again.strength


def test_an_observation_is_stored_with_the_order_key_the_retain_job_would_give_it() -> None:
    events = event_append_many(source="test:order", events=[
        {"source_id": f"e{i}", "occurred_at": T0 + timedelta(minutes=i), "type": "note",
         "subtype": "note", "actor": "tester", "payload": {"n": i}} for i in range(3)])
    ids = submit(commit("Alice Martin", "cortex", "feat: a") | {"event_ids": [events[0].id,
                                                                            events[2].id]},
                 commit("Bruno Dupont", "cortex", "feat: b"),
                 commit("Chloe Bernard", "cortex", "feat: c") | {"event_ids": [events[1].id]})
    stored = dict(Observation.objects.filter(pk__in=ids).values_list("id", "order_key"))
    assert all(stored.values())
    Observation.objects.filter(pk__in=ids).update(order_key="")
    assert retain_order_assign() == 3
    assert dict(Observation.objects.filter(pk__in=ids).values_list("id", "order_key")) == stored
    latest = MemoryEvent.objects.get(pk=events[2].id)
    assert stored[ids[0]].startswith(f"{latest.txid:020d}:{latest.id}:")
    assert stored[ids[1]].startswith(f"{0:020d}:")
