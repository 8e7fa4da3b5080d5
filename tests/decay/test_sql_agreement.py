"""The SQL mirror agrees with the pure formulas to 1e-9 on random inputs."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.config import DecayConfig, config_get
from memory.decay.formulas import EntityState, entity_strength, relation_weight
from memory.models import Entity, Namespace, Relation
from memory.selectors.entities import STRENGTH_NOW, entity_with_strength
from memory.selectors.relations import WEIGHT_NOW, relation_with_weight
from tests.decay import factories
from tests.decay.conftest import NOW, config_with

pytestmark = pytest.mark.django_db

TOLERANCE = 1e-9
# Up to ~8 years either side of now, to the microsecond.
offsets = st.integers(min_value=-10**14, max_value=250 * 10**12).map(
    lambda us: timedelta(microseconds=us)
)
states = st.builds(
    EntityState,
    base=st.floats(min_value=0, max_value=1),
    half_life_days=st.floats(min_value=0.01, max_value=1000),
    valence=st.sampled_from(["neutral", "positive", "negative", "critical"]),
    pos=st.integers(min_value=0, max_value=100_000),
    neg=st.integers(min_value=0, max_value=100_000),
    retrieval_count=st.integers(min_value=0, max_value=10**7),
    route=st.sampled_from(["dark_matter", "normal", "fast_lane"]),
    pinned=st.sampled_from([False, False, False, True]),
)
HYPOTHESIS = settings(
    max_examples=60, deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _agree(python: float, sql: float) -> bool:
    if math.isinf(python):
        return python == sql
    return abs(python - sql) <= TOLERANCE


@pytest.fixture
def world_project() -> Namespace:
    factories.synced()
    return factories.namespace("world:project")


@pytest.mark.parametrize("model", ["extended", "simplified"])
@HYPOTHESIS
@given(batch=st.lists(st.tuples(states, offsets), min_size=20, max_size=60))
def test_entity_strength_sql_equals_python(
    world_project: Namespace, model: str, batch: list[tuple[EntityState, timedelta]]
) -> None:
    config = config_with(entity_model=model) if model != config_get().entity_model else config_get()
    rows = [
        Entity(namespace=world_project, slug=f"h{i}", key=f"world:project:h{i}",
               memory_type="semantic", referent="object", last_reinforced_at=NOW - offset,
               created_at=NOW, base=s.base, half_life_days=s.half_life_days, valence=s.valence,
               pos=s.pos, neg=s.neg, retrieval_count=s.retrieval_count, route=s.route,
               pinned=s.pinned)
        for i, (s, offset) in enumerate(batch)
    ]
    created = Entity.objects.bulk_create(rows)
    try:
        got = dict(entity_with_strength(now=NOW, config=config).values_list("id", STRENGTH_NOW))
        for row, (state, offset) in zip(created, batch, strict=True):
            expected = entity_strength(state, last_reinforced_at=NOW - offset, now=NOW,
                                       config=config)
            assert _agree(expected, got[row.pk]), (state, offset, expected, got[row.pk])
    finally:
        Entity.objects.filter(pk__in=[r.pk for r in created]).delete()


@HYPOTHESIS
@given(batch=st.lists(
    st.tuples(st.sampled_from(["foundational", "normal", "weak", "retired-class"]), offsets),
    min_size=20, max_size=60,
))
def test_relation_weight_sql_equals_python(
    world_project: Namespace, batch: list[tuple[str, timedelta]]
) -> None:
    config: DecayConfig = config_get()
    a = factories.entity(now=NOW)
    b = factories.entity(now=NOW)
    rows = [
        Relation(source=a, target=b, relation_type=f"t{i}", relation_class=cls,
                 last_reinforced_at=NOW - offset, created_at=NOW)
        for i, (cls, offset) in enumerate(batch)
    ]
    created = Relation.objects.bulk_create(rows)
    got = dict(relation_with_weight(now=NOW, config=config).values_list("id", WEIGHT_NOW))
    for row, (cls, offset) in zip(created, batch, strict=True):
        expected = relation_weight(relation_class=cls, last_reinforced_at=NOW - offset, now=NOW,
                                   config=config)
        assert _agree(expected, got[row.pk]), (cls, offset, expected, got[row.pk])
    Relation.objects.filter(pk__in=[r.pk for r in created]).delete()
