"""reinforce, feedback, pin/unpin and relation_reinforce: exact effects, one statement each."""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

import pytest

from memory.models import Entity, EntityStatus, Relation
from memory.selectors.entities import STRENGTH_NOW, entity_with_strength
from memory.selectors.relations import relation_visible
from memory.services.entities import (
    entity_feedback,
    entity_pin,
    entity_reinforce,
    entity_unpin,
)
from memory.services.relations import relation_reinforce
from memory.services.taxonomy import taxonomy_sync
from tests.decay import factories
from tests.decay.conftest import NOW

pytestmark = pytest.mark.django_db

LATER = NOW + timedelta(days=30)


@pytest.fixture(autouse=True)
def _taxonomy() -> None:
    taxonomy_sync()


def _strength(entity: Entity, at: Any) -> float:
    return float(getattr(entity_with_strength(now=at).get(pk=entity.pk), STRENGTH_NOW))


def test_a_new_entity_takes_its_namespace_defaults() -> None:
    rc = factories.entity(now=NOW, path="agent:claude-code:rc")
    assert (rc.base, rc.half_life_days, rc.valence, rc.pinned) == (0.5, 14, "neutral", False)
    assert (rc.memory_type, rc.referent) == ("semantic", "agent")
    assert rc.key.startswith("agent:claude-code:rc:")
    assert rc.strength == 0.5 and rc.strength_evaluated_at == NOW


def test_reinforce_many_entities_in_one_statement(django_assert_num_queries: Any) -> None:
    entities = [factories.entity(now=NOW, half_life_days=30) for _ in range(5)]
    with django_assert_num_queries(1):
        count = entity_reinforce(entity_ids=[e.pk for e in entities], now=LATER)
    assert count == 5
    for entity in Entity.objects.filter(pk__in=[e.pk for e in entities]):
        assert entity.retrieval_count == 1
        assert entity.last_reinforced_at == LATER
        # the clock restarted: 0.5 x boost(1) = 0.5 x 1.1
        assert entity.strength == pytest.approx(0.55, abs=1e-12)
        assert _strength(entity, LATER) == pytest.approx(0.55, abs=1e-12)


def test_three_recalls_give_a_boost_of_one_fifth() -> None:
    entity = factories.entity(now=NOW, half_life_days=30)
    for day in (1, 2, 3):
        entity_reinforce(entity_ids=[entity.pk], now=NOW + timedelta(days=day))
    at = NOW + timedelta(days=33)
    assert _strength(entity, at) == pytest.approx(0.5 * 1.2 * 0.5, abs=1e-12)


def test_an_older_recall_does_not_move_the_clock_back() -> None:
    entity = factories.entity(now=LATER)
    entity_reinforce(entity_ids=[entity.pk], now=NOW)
    assert Entity.objects.get(pk=entity.pk).last_reinforced_at == LATER


def test_quarantined_and_merged_entities_are_not_reinforced() -> None:
    quarantined = factories.entity(now=NOW, status=EntityStatus.QUARANTINED)
    merged = factories.entity(now=NOW, status=EntityStatus.MERGED)
    assert entity_reinforce(entity_ids=[quarantined.pk, merged.pk], now=LATER) == 0
    assert Entity.objects.filter(retrieval_count=0).count() == 2


def test_feedback_moves_the_reward_factor() -> None:
    entity = factories.entity(now=NOW, half_life_days=30)
    for _ in range(3):
        entity = entity_feedback(entity_id=entity.pk, outcome="positive", now=NOW)
    assert (entity.pos, entity.neg) == (3, 0)
    # effective half-life 30 x 1.375
    assert _strength(entity, NOW + timedelta(days=41.25)) == pytest.approx(0.25, abs=1e-12)
    entity = entity_feedback(entity_id=entity.pk, outcome="negative", now=NOW)
    assert entity.neg == 1 and entity.last_reinforced_at == NOW
    with pytest.raises(ValueError, match="outcome"):
        entity_feedback(entity_id=entity.pk, outcome="meh")
    with pytest.raises(Entity.DoesNotExist):
        entity_feedback(entity_id=10**9, outcome="positive")


def test_a_pinned_entity_never_decays_and_unpinning_resumes_the_curve() -> None:
    entity = factories.entity(now=NOW, half_life_days=30)
    pinned = entity_pin(entity_id=entity.pk, now=NOW)
    assert pinned.pinned and pinned.strength == math.inf
    assert _strength(entity, NOW + timedelta(days=10_000)) == math.inf
    unpinned = entity_unpin(entity_id=entity.pk, now=LATER)
    assert not unpinned.pinned
    assert unpinned.strength == pytest.approx(0.25, abs=1e-12)
    assert _strength(entity, LATER) == pytest.approx(0.25, abs=1e-12)


def test_relation_reinforce_creates_then_adds_evidence(django_assert_num_queries: Any) -> None:
    a, b, c = (factories.entity(now=NOW) for _ in range(3))
    edges = [(a.pk, b.pk, "is_core_concept_of"), (a.pk, c.pk, "mentions"),
             (a.pk, c.pk, "mentions")]
    with django_assert_num_queries(1):
        assert relation_reinforce(edges=edges, now=NOW) == 2
    core = Relation.objects.get(relation_type="is_core_concept_of")
    assert (core.relation_class, core.evidence_count, core.last_reinforced_at) == (
        "foundational", 1, NOW)
    relation_reinforce(edges=[(a.pk, b.pk, "is_core_concept_of")], now=LATER)
    core.refresh_from_db()
    assert (core.evidence_count, core.last_reinforced_at) == (2, LATER)
    relation_reinforce(edges=[(a.pk, b.pk, "is_core_concept_of")], now=NOW)
    core.refresh_from_db()
    assert (core.evidence_count, core.last_reinforced_at) == (3, LATER)


def test_relation_reinforce_refuses_loops_and_untyped_edges() -> None:
    a, b = factories.entity(now=NOW), factories.entity(now=NOW)
    with pytest.raises(ValueError, match="two entities"):
        relation_reinforce(edges=[(a.pk, a.pk, "uses")], now=NOW)
    with pytest.raises(ValueError, match="type"):
        relation_reinforce(edges=[(a.pk, b.pk, "")], now=NOW)
    assert not Relation.objects.exists()


def test_a_relation_fades_from_standard_reads_below_0_2() -> None:
    a, b = factories.entity(now=NOW), factories.entity(now=NOW)
    relation_reinforce(edges=[(a.pk, b.pk, "uses")], now=NOW)
    crossing = 30 * math.log(5)
    assert relation_visible(now=NOW + timedelta(days=crossing - 0.01)).count() == 1
    assert relation_visible(now=NOW + timedelta(days=crossing + 0.01)).count() == 0
    assert Relation.objects.count() == 1
