"""Decisions are events too: every decision an operator or an agent takes is a raw event
(source, actor, targets by key) written in the transaction that applies it, before the
change, and `cortex rebuild graph` replays them where they were taken: the rebuilt digest
equals the incremental one."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from memory.errors import DomainError
from memory.models import (
    Conflict,
    Entity,
    EntityMerge,
    Fact,
    MemoryEvent,
    Observation,
    ReviewItem,
)
from memory.selectors.graph import graph_digest
from memory.services import rebuild as rebuild_service
from memory.services import review as review_service
from memory.services.decision_replay import DecisionReplayReport
from memory.services.decisions import decider_agent
from memory.services.events import event_append_many
from memory.services.feedback import entity_feedback, entity_pin, entity_unpin
from memory.services.merges import entity_merge_decide, entity_merge_split
from memory.services.rebuild import graph_rebuild
from memory.services.review import (
    Decision,
    ReviewRefused,
    conflict_resolve,
    review_accept,
    review_keep,
    review_merge,
)
from tests.retain.conftest import retain
from tests.retain.factories import OPERATOR, T0, commit, fact, instruction, submit

pytestmark = pytest.mark.usefixtures("synced")
SOURCE = {**OPERATOR, "role": "source"}
PLANNER = decider_agent("planner")


def _at(hours: float) -> Any:
    return T0 + timedelta(hours=hours)


def _decisions() -> list[tuple[str, str, str]]:
    return list(MemoryEvent.objects.filter(type="decision").order_by("txid", "id")
                .values_list("source", "actor", "subtype"))


def _dark(subject: str, text: str, target: str, hours: float) -> ReviewItem:
    (observation,) = submit(fact(subject, text, target=target, at=_at(hours)))
    retain(embed=True)
    return ReviewItem.objects.get(observation_id=observation)


def _scenario() -> None:
    """Observations, then each kind of decision with observations in between, then more."""
    submit(commit("Anya Petrova", "billing-api", "feat: invoices", at=_at(0)),
           commit("Petrova, Anya", "billing-api", "fix: ranking bug", at=_at(1)),
           commit("Bruno Dupont", "billing", "docs: usage notes", at=_at(2)),
           instruction("use uv", text="Always use uv.", at=_at(3)),
           instruction("use uv", "negative", text="N'utilise jamais uv.", language="fr",
                       at=_at(4)))
    retain(embed=True)
    zorblax = _dark("Zorblax", "Zorblax glows in the dark", "world:concept", 5)
    quux = _dark("Quux", "Quux sings at night", "world:place", 6)
    blorp = _dark("Blorp", "Blorp hums softly", "world:contract", 6.5)

    review_accept(item_id=zorblax.pk, by="alice")
    submit(fact("Zorblax", "Zorblax glows in the dark", target="world:concept",
                actors=(SOURCE,), at=_at(7)))
    retain(embed=True)
    review_keep(item_id=quux.pk, by="alice")
    conflict_resolve(conflict_id=Conflict.objects.get().pk, decision=Decision.KEEP_BOTH,
                     by=PLANNER, note="uv in this repository, pip elsewhere")
    entity_merge_decide(merged_key="world:project:billing",
                        survivor_key="world:project:billing-api", by="alice")
    submit(commit("Bruno Dupont", "billing", "fix: totals", at=_at(8)))
    retain(embed=True)
    embedding = EntityMerge.objects.get(reason="embedding")
    entity_merge_split(merge_id=embedding.pk, by="bob")
    entity_pin(key="world:concept:zorblax", by=PLANNER)
    entity_feedback(key="agent:claude-code:instruction:use-uv", outcome="positive", by=PLANNER)
    entity_feedback(key="world:project:billing", outcome="negative", by="alice")
    review_merge(item_id=blorp.pk, into_key="world:concept:zorblax", by="alice")

    submit(commit("Petrova, Anya", "billing-api", "feat: refunds", at=_at(10)),
           instruction("use uv", "negative", text="Never use uv.", at=_at(11)),
           fact("Blorp", "Blorp hums softly", target="world:contract", actors=(SOURCE,),
                at=_at(12)))
    retain(embed=True)


def test_the_rebuilt_graph_holds_every_decision() -> None:
    _scenario()
    incremental = graph_digest()

    report = graph_rebuild()

    assert report.decisions.skipped == []
    assert report.decisions.applied == {
        "review.accept": 1, "review.keep": 1, "review.merge": 1, "conflict.resolve": 1,
        "merge": 1, "split": 1, "pin": 1, "feedback": 2}
    assert report.digest == incremental == graph_digest()
    # What the decisions did is there after the rebuild (expected from the scenario itself).
    zorblax = Entity.objects.get(key="world:concept:zorblax")
    assert (zorblax.status, zorblax.pinned) == ("active", True)
    assert Entity.objects.get(key="world:contract:blorp").merged_into_id == zorblax.pk
    assert Entity.objects.get(key="world:place:quux").status == "quarantined"
    statuses = dict(ReviewItem.objects.values_list("observation__topic", "status"))
    assert statuses == {"Zorblax glows in the dark": "accepted",
                        "Quux sings at night": "kept_quarantined",
                        "Blorp hums softly": "merged"}
    billing_api = Entity.objects.get(key="world:project:billing-api")
    assert Entity.objects.get(key="world:project:billing").merged_into_id == billing_api.pk
    assert (billing_api.pos, billing_api.neg) == (0, 1)  # feedback on the merged name
    assert Entity.objects.get(key="world:person:petrova-anya").status == "active"  # split
    rule = Entity.objects.get(key="agent:claude-code:instruction:use-uv")
    assert rule.pos == 1
    assert Conflict.objects.get(new__claim="never use uv", new__polarity=-1).status == "kept_both"
    assert set(Fact.objects.filter(entity=rule).values_list("status", flat=True)) == {"scoped"}
    # Replaying again changes nothing.
    assert graph_rebuild().digest == incremental


def test_a_rebuild_that_ignored_the_decisions_would_differ(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _scenario()
    incremental = graph_digest()
    with monkeypatch.context() as patch:
        patch.setattr(rebuild_service, "decision_replay_run",
                      lambda **kwargs: DecisionReplayReport())
        assert graph_rebuild().digest != incremental
    assert graph_rebuild().digest == incremental
    # A later decision moves the digest, and the rebuild follows it.
    entity_unpin(key="world:concept:zorblax", by=PLANNER)
    assert graph_digest() != incremental
    assert graph_rebuild().digest == graph_digest()


def test_each_decision_is_a_raw_event_naming_its_targets_by_key() -> None:
    _scenario()
    assert _decisions() == [
        ("operator:alice", "alice", "review.accept"),
        ("operator:alice", "alice", "review.keep"),
        ("api:planner", "planner", "conflict.resolve"),
        ("operator:alice", "alice", "merge"),
        ("operator:bob", "bob", "split"),
        ("api:planner", "planner", "pin"),
        ("api:planner", "planner", "feedback"),
        ("operator:alice", "alice", "feedback"),
        ("operator:alice", "alice", "review.merge"),
    ]
    by_subtype = {e.subtype: e for e in MemoryEvent.objects.filter(type="decision")}
    resolve = by_subtype["conflict.resolve"].payload
    rule = "agent:claude-code:instruction:use-uv"
    lemmas = {f.polarity: f.lemma_key for f in Fact.objects.filter(entity__key=rule)}
    assert resolve["existing"] == [rule, lemmas[1], 1]
    assert resolve["new"] == [rule, lemmas[-1], -1]
    assert resolve["decision"] == "kept_both"
    assert by_subtype["split"].payload["merged"] == "world:person:petrova-anya"
    assert by_subtype["review.merge"].payload["into"] == "world:concept:zorblax"
    accepted = Observation.objects.get(topic="Zorblax glows in the dark", review_item__isnull=False)
    assert by_subtype["review.accept"].payload["observation"] == accepted.dedup_key
    # How far the Retain Job had gone: the last observation retained before the decision.
    assert by_subtype["review.accept"].payload["retained_through"] == (
        Observation.objects.get(topic="Blorp hums softly", review_item__isnull=False).order_key)
    for event in by_subtype.values():
        assert not any(isinstance(v, int) and k.endswith("id") for k, v in event.payload.items())


def test_the_event_is_written_before_the_change(monkeypatch: pytest.MonkeyPatch) -> None:
    submit(instruction("use uv", at=_at(0)), instruction("use uv", "negative", at=_at(1)))
    retain()
    seen: list[int] = []
    original = review_service._set_fact_status

    def spy(fact_id: int, status: str | None) -> None:
        seen.append(MemoryEvent.objects.filter(subtype="conflict.resolve").count())
        original(fact_id, status)

    monkeypatch.setattr(review_service, "_set_fact_status", spy)
    conflict_resolve(conflict_id=Conflict.objects.get().pk, decision=Decision.REJECT_NEW,
                     by="alice")
    assert seen == [1, 1]


def test_a_decision_that_fails_leaves_no_event_and_no_change(
        monkeypatch: pytest.MonkeyPatch) -> None:
    item = _dark("Zorblax", "Zorblax glows in the dark", "world:concept", 0)
    with pytest.raises(ReviewRefused):
        review_merge(item_id=item.pk, into_key="world:concept:nope", by="alice")

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the apply failed half-way")

    monkeypatch.setattr(review_service, "_apply_as_normal", broken)
    with pytest.raises(RuntimeError):
        review_accept(item_id=item.pk, by="alice")  # entities activated, then the failure
    with pytest.raises(DomainError):
        entity_pin(key="world:concept:nope", by="alice")
    assert _decisions() == []
    item.refresh_from_db()
    assert item.status == "open"
    zorblax = Entity.objects.get(key="world:concept:zorblax")
    assert (zorblax.status, zorblax.pinned) == ("quarantined", False)


def test_a_decision_that_no_longer_applies_is_skipped_on_replay() -> None:
    submit(commit("Anya Petrova", "cortex", "feat", at=_at(0)))
    retain()
    entity_pin(key="world:project:cortex", by="alice")
    event_append_many(source="api:forger", events=[{
        "source_id": "pin:forged", "occurred_at": _at(1), "type": "decision", "subtype": "pin",
        "actor": "forger", "payload": {"entity": "world:project:nope"}}])
    incremental = graph_digest()
    report = graph_rebuild()
    assert report.decisions.applied == {"pin": 1}
    assert len(report.decisions.skipped) == 1 and "pin" in report.decisions.skipped[0]
    assert report.digest == incremental


def _act(client: Client, model: str, action: str, pk: int, **extra: str) -> None:
    response = client.post(reverse(f"admin:memory_{model}_changelist"),
                           {"action": action, "_selected_action": [str(pk)], **extra},
                           follow=True)
    assert response.status_code == 200


def test_the_admin_actions_record_the_operator(admin_client: Client) -> None:
    submit(commit("Anya Petrova", "cortex", "feat: search", at=_at(0)),
           commit("Petrova, Anya", "cortex", "fix: ranking bug", at=_at(1)),
           commit("Bruno Dupont", "infra", "chore: bump deps", at=_at(1.5)),
           instruction("use uv", at=_at(2)), instruction("use uv", "negative", at=_at(3)))
    retain(embed=True)
    zorblax = _dark("Zorblax", "Zorblax glows in the dark", "world:concept", 4)
    quux = _dark("Quux", "Quux sings at night", "world:place", 5)
    blorp = _dark("Blorp", "Blorp hums softly", "world:contract", 6)
    _act(admin_client, "reviewitem", "accept", zorblax.pk)
    _act(admin_client, "reviewitem", "keep", quux.pk)
    _act(admin_client, "reviewitem", "merge", blorp.pk, into_key="world:project:cortex")
    _act(admin_client, "conflict", "resolve_kept_new", Conflict.objects.get().pk)
    _act(admin_client, "entitymerge", "split", EntityMerge.objects.get(reason="embedding").pk)
    cortex = Entity.objects.get(key="world:project:cortex")
    _act(admin_client, "entity", "pin", cortex.pk)
    _act(admin_client, "entity", "unpin", cortex.pk)
    _act(admin_client, "entity", "feedback_positive", cortex.pk)
    infra = Entity.objects.get(key="world:project:infra")
    _act(admin_client, "entity", "merge", infra.pk, into_key="world:project:cortex")
    _act(admin_client, "entity", "merge", cortex.pk, into_key="world:project:nope")  # refused
    assert _decisions() == [("operator:admin", "admin", subtype) for subtype in (
        "review.accept", "review.keep", "review.merge", "conflict.resolve", "split", "pin",
        "unpin", "feedback", "merge")]
    cortex.refresh_from_db()
    assert (cortex.pinned, cortex.pos) == (False, 1)
    assert Entity.objects.get(key="world:project:infra").merged_into_id == cortex.pk
    incremental = graph_digest()
    assert graph_rebuild().digest == incremental
