"""The strongest entities of a namespace at `now`: the indexed path is exact."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

import pytest

from memory.config import config_get
from memory.decay.formulas import entity_strength
from memory.models import Entity, EntityStatus, Namespace
from memory.selectors.entities import _stored_strength_bounds, entity_strongest
from memory.services.entities import (
    entity_feedback,
    entity_pin,
    entity_reinforce,
    entity_state,
    entity_unpin,
)
from memory.services.sleep_cycle import sleep_cycle_run
from memory.services.taxonomy import namespace_resolve, taxonomy_sync
from tests.decay import factories
from tests.decay.conftest import NOW, config_with

pytestmark = pytest.mark.django_db


def _expected(namespace: Namespace, now: datetime, limit: int) -> list[int]:
    """The ranking computed in Python from the rows, independently of the index."""
    rows = Entity.objects.filter(namespace=namespace, status=EntityStatus.ACTIVE)
    scored = [(entity_strength(entity_state(e), last_reinforced_at=e.last_reinforced_at,
                               now=now, config=config_get()), e.pk) for e in rows]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [pk for _, pk in scored[:limit]]


@pytest.fixture
def busy_namespace() -> Namespace:
    taxonomy_sync()
    rng = random.Random(7)
    for _ in range(300):
        factories.entity(
            now=NOW - timedelta(days=rng.uniform(0, 200)), path="world:project",
            base=rng.uniform(0.05, 1), half_life_days=rng.choice([7, 14, 45, 90]),
            valence=rng.choice(["neutral", "positive", "negative", "critical"]),
            route=rng.choice(["dark_matter", "normal", "fast_lane"]),
            status=rng.choice([EntityStatus.ACTIVE] * 5 + [EntityStatus.QUARANTINED]),
        )
    factories.entity(now=NOW, path="world:person", base=1.0)  # another namespace
    return namespace_resolve(path="world:project")


def _stir(namespace: Namespace, at: datetime) -> None:
    """Writes after the last consolidation: recalls, feedback, pins, new rows."""
    rng = random.Random(11)
    ids = list(Entity.objects.filter(namespace=namespace).values_list("pk", flat=True))
    entity_reinforce(entity_ids=rng.sample(ids, 40), now=at)
    for pk in rng.sample(ids, 20):
        entity_feedback(entity_id=pk, outcome=rng.choice(["positive", "negative"]), now=at)
    for pk in rng.sample(ids, 3):
        entity_pin(entity_id=pk, now=at)
    entity_unpin(entity_id=ids[0], now=at)
    factories.entity(now=at, path="world:project", base=0.9)
    Entity.objects.bulk_create([  # a writer that stores no strength at all
        Entity(namespace=namespace, slug="raw", key="world:project:raw", memory_type="semantic",
               referent="object", base=0.99, half_life_days=45, last_reinforced_at=at,
               created_at=at)
    ])


@pytest.mark.parametrize("limit", [1, 20, 50])
def test_the_indexed_ranking_is_the_exact_ranking(busy_namespace: Namespace, limit: int) -> None:
    sleep_cycle_run(now=NOW)
    _stir(busy_namespace, NOW + timedelta(days=2))
    for days in (2, 3, 30, 400):
        at = NOW + timedelta(days=days)
        assert _stored_strength_bounds(now=at, config=config_get())
        got = [e.pk for e in entity_strongest(namespace=busy_namespace, now=at, limit=limit)]
        assert got == _expected(busy_namespace, at, limit), days


def test_pinned_entities_rank_first(busy_namespace: Namespace) -> None:
    sleep_cycle_run(now=NOW)
    weak = Entity.objects.filter(namespace=busy_namespace, status="active").order_by("base")[0]
    entity_pin(entity_id=weak.pk, now=NOW)
    top = entity_strongest(namespace=busy_namespace, now=NOW + timedelta(days=1), limit=5)
    assert top[0].pk == weak.pk


def test_without_trustworthy_stored_values_every_row_is_ranked(
    busy_namespace: Namespace, swap_config: Any,
) -> None:
    at = NOW + timedelta(days=5)
    assert not _stored_strength_bounds(now=at, config=config_get())  # never consolidated
    assert [e.pk for e in entity_strongest(namespace=busy_namespace, now=at)] == \
        _expected(busy_namespace, at, 50)
    sleep_cycle_run(now=NOW + timedelta(days=10))
    assert not _stored_strength_bounds(now=at, config=config_get())  # evaluated later than `at`
    assert [e.pk for e in entity_strongest(namespace=busy_namespace, now=at)] == \
        _expected(busy_namespace, at, 50)
    swap_config(config_with(thresholds={"regeneration": 0.2}))
    assert not _stored_strength_bounds(now=NOW + timedelta(days=11), config=config_get())


def test_the_indexed_ranking_reads_few_rows(
    busy_namespace: Namespace, django_assert_max_num_queries: Any,
) -> None:
    sleep_cycle_run(now=NOW)
    with django_assert_max_num_queries(5):
        entity_strongest(namespace=busy_namespace, now=NOW + timedelta(hours=6), limit=10)
