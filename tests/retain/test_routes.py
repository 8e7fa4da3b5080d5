"""The three routes: dark matter is quarantined with its half-life halved, unreinforced and
queued for review; the fast lane lengthens it and skips the embedding dedup; the normal path
reinforces what it mentions at the observation's time."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory.config import DecayConfig
from memory.decay.formulas import entity_strength
from memory.models import (
    DedupState,
    Entity,
    EntityMention,
    Observation,
    ReviewItem,
    Route,
)
from memory.services.embeddings import embedding_passes_run
from memory.services.entities import entity_state
from tests.retain.conftest import retain
from tests.retain.factories import T0, commit, fact, submit

pytestmark = pytest.mark.usefixtures("synced")


def test_dark_matter_is_quarantined_with_half_its_half_life(config: DecayConfig) -> None:
    (observation,) = submit(fact("Zorblax", "Zorblax glows in the dark", target="world:concept",
                                 at=T0))
    retain()
    entity = Entity.objects.get(key="world:concept:zorblax")
    assert (entity.status, entity.route) == ("quarantined", Route.DARK_MATTER)
    assert Observation.objects.get(pk=observation).status == "quarantined"
    item = ReviewItem.objects.get(observation_id=observation)
    assert list(item.entities.all()) == [entity] and item.status == "open"
    state = entity_state(entity)
    at_creation = entity_strength(state, last_reinforced_at=T0, now=T0, config=config)
    half = entity.half_life_days * 0.5  # world:concept: 90 days, x0.5 -> 45
    later = entity_strength(state, last_reinforced_at=T0, now=T0 + timedelta(days=half),
                            config=config)
    assert entity.half_life_days == 90 and later == pytest.approx(at_creation / 2)
    assert entity.facts.get().status == "quarantined"


def test_dark_matter_is_not_reinforced(config: DecayConfig) -> None:
    submit(fact("Zorblax", "Zorblax glows in the dark", target="world:concept", at=T0),
           fact("Zorblax", "Zorblax hums at night", target="world:concept",
                at=T0 + timedelta(days=3)))
    retain()
    entity = Entity.objects.get(key="world:concept:zorblax")
    assert entity.retrieval_count == 0 and entity.last_reinforced_at == T0
    assert EntityMention.objects.filter(entity=entity, reinforced=False).count() == 2
    assert ReviewItem.objects.count() == 2


def _familiar(n: int) -> None:
    """A familiar pair: n commits of one author on one repository."""
    submit(*[commit("Anya Petrova", "cortex", "feat: search ranking",
                    at=T0 + timedelta(hours=i)) for i in range(n)])
    retain()


def test_the_fast_lane_lengthens_the_half_life_and_skips_the_dedup_pass(
    config: DecayConfig,
) -> None:
    _familiar(30)
    # "Petrova, Anya" is the same person (the dedup pass would merge it on the normal path).
    (observation,) = submit(commit("Petrova, Anya", "cortex", "feat: search ranking",
                                   at=T0 + timedelta(days=5)))
    retain()
    assert (Observation.objects.get(pk=observation).schema_fit or 0) > config.routes.fast_lane_above
    variant = Entity.objects.get(key="world:person:petrova-anya")
    assert variant.route == Route.FAST_LANE and variant.status == "active"
    assert variant.embedding.dedup == DedupState.SKIPPED
    embedding_passes_run()
    variant.refresh_from_db()
    assert variant.status == "active" and variant.merged_into_id is None


def test_the_normal_path_reinforces_at_the_observations_time(config: DecayConfig) -> None:
    submit(commit("Anya Petrova", "cortex", "feat: one", at=T0),
           commit("Anya Petrova", "cortex", "fix: two", at=T0 + timedelta(days=2)),
           commit("Anya Petrova", "cortex", "docs: three", at=T0 + timedelta(days=1)))
    retain()
    person = Entity.objects.get(key="world:person:anya-petrova")
    assert person.retrieval_count == 2  # created by the first, recalled by the next two
    assert person.last_reinforced_at == T0 + timedelta(days=2)  # not the wall clock
    assert person.created_at == T0
    assert person.route == Route.NORMAL and person.embedding.dedup == DedupState.PENDING
    edge = person.relations_out.get(relation_type="works_on")
    assert edge.evidence_count == 3 and edge.target.key == "world:project:cortex"
