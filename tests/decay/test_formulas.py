"""The pure formulas against values computed by hand (docs/decay.md)."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest

from memory.config import DecayConfig
from memory.decay.formulas import (
    EntityState,
    days_between,
    entity_crossing_days,
    entity_strength,
    relation_crossing_days,
    relation_weight,
    retrieval_boost,
    reward_factor,
    strength_after,
    weight_temporal,
)
from tests.decay.conftest import NOW, config_with

NEUTRAL = EntityState(base=0.5, half_life_days=30)


def test_neutral_entity_at_one_half_life_is_half_its_base(config: DecayConfig) -> None:
    assert strength_after(NEUTRAL, dt_days=30, config=config) == pytest.approx(0.25, abs=1e-15)


def test_dt_comes_from_timestamps_in_days(config: DecayConfig) -> None:
    since = NOW - timedelta(days=30)
    assert days_between(since=since, now=NOW) == 30.0
    assert entity_strength(NEUTRAL, last_reinforced_at=since, now=NOW, config=config) == 0.25


def test_a_reinforcement_in_the_future_counts_as_now(config: DecayConfig) -> None:
    assert days_between(since=NOW + timedelta(days=3), now=NOW) == 0.0
    assert strength_after(NEUTRAL, dt_days=0, config=config) == 0.5


def test_three_retrievals_boost_by_one_fifth() -> None:
    assert retrieval_boost(retrieval_count=3, retrieval_weight=0.1) == pytest.approx(1.2, abs=1e-15)
    assert retrieval_boost(retrieval_count=0, retrieval_weight=0.1) == 1.0


def test_three_positive_outcomes_and_no_negative_give_reward_1_375() -> None:
    assert reward_factor(pos=3, neg=0, reward_weight=0.5) == 1.375
    assert reward_factor(pos=0, neg=3, reward_weight=0.5) == 0.625
    assert reward_factor(pos=2, neg=2, reward_weight=0.5) == 1.0


def test_reward_lengthens_the_effective_half_life(config: DecayConfig) -> None:
    rewarded = EntityState(base=0.5, half_life_days=30, pos=3)
    # effective half-life 30 x 1.375 = 41.25 days
    assert strength_after(rewarded, dt_days=41.25, config=config) == pytest.approx(0.25)


def test_every_factor_of_the_extended_model(config: DecayConfig) -> None:
    state = EntityState(base=0.8, half_life_days=45, valence="positive", retrieval_count=7,
                        pos=1, neg=1)
    # 0.8 x boost (1 + 0.1 x log2 8 = 1.3) x positive 1.3 x 0.5^(45 / (45 x 1 x 1))
    assert strength_after(state, dt_days=45, config=config) == pytest.approx(0.676, abs=1e-12)


def test_a_critical_entity_outlives_a_neutral_one(config: DecayConfig) -> None:
    critical = EntityState(base=0.5, half_life_days=30, valence="critical")
    assert entity_crossing_days(NEUTRAL, config=config) == pytest.approx(30 * math.log2(0.5 / 0.35))
    assert entity_crossing_days(critical, config=config) == pytest.approx(30 * math.log2(1 / 0.35))
    day = 20.0
    assert strength_after(NEUTRAL, dt_days=day, config=config) < 0.35
    assert strength_after(critical, dt_days=day, config=config) > 0.35


@pytest.mark.parametrize(("valence", "multiplier"), [
    ("neutral", 1.0), ("positive", 1.3), ("negative", 1.5), ("critical", 2.0),
])
def test_emotional_multipliers(config: DecayConfig, valence: str, multiplier: float) -> None:
    state = EntityState(base=0.5, half_life_days=30, valence=valence)
    assert strength_after(state, dt_days=0, config=config) == pytest.approx(0.5 * multiplier)


def test_a_pinned_entity_never_decays(config: DecayConfig) -> None:
    pinned = EntityState(base=0.1, half_life_days=1, pinned=True)
    assert strength_after(pinned, dt_days=0, config=config) == math.inf
    assert strength_after(pinned, dt_days=1e6, config=config) == math.inf
    assert entity_crossing_days(pinned, config=config) is None


@pytest.mark.parametrize(("route", "at_quarter"), [
    ("dark_matter", 15.0), ("normal", 30.0), ("fast_lane", 45.0),
])
def test_the_route_scales_the_half_life(config: DecayConfig, route: str, at_quarter: float) -> None:
    state = EntityState(base=0.5, half_life_days=30, route=route)
    assert strength_after(state, dt_days=at_quarter, config=config) == pytest.approx(0.25)


def test_the_simplified_model() -> None:
    simplified = config_with(entity_model="simplified")
    state = EntityState(base=0.5, half_life_days=30, retrieval_count=2, valence="critical", pos=9)
    # 0.5 x (1 + 0.3 x 2) x exp(-30 / 30); valence and feedback play no part
    expected = 0.8 * math.exp(-1)
    got = strength_after(state, dt_days=30, config=simplified)
    assert got == pytest.approx(expected, abs=1e-15)
    crossing = entity_crossing_days(state, config=simplified)
    assert crossing == pytest.approx(30 * math.log(0.8 / 0.35))


def test_relations_at_sigma_30_cross_0_2_after_30_ln_5_days(config: DecayConfig) -> None:
    crossing = relation_crossing_days(relation_class="normal", config=config)
    assert crossing == pytest.approx(30 * math.log(5), abs=1e-12)
    since = NOW - timedelta(days=crossing)
    weight = relation_weight(relation_class="normal", last_reinforced_at=since, now=NOW,
                             config=config)
    assert weight == pytest.approx(0.2, abs=1e-12)


@pytest.mark.parametrize(("relation_class", "sigma"), [
    ("foundational", 90), ("normal", 30), ("weak", 7),
])
def test_relation_classes(config: DecayConfig, relation_class: str, sigma: float) -> None:
    since = NOW - timedelta(days=sigma)
    weight = relation_weight(relation_class=relation_class, last_reinforced_at=since, now=NOW,
                             config=config)
    assert weight == pytest.approx(math.exp(-1)) == weight_temporal(dt_days=sigma, sigma_days=sigma)


def test_relation_types_map_to_their_class(config: DecayConfig) -> None:
    assert config.graph.class_of("is_core_concept_of") == "foundational"
    assert config.graph.class_of("mentions") == "weak"
    assert config.graph.class_of("never-heard-of") == "normal"


def test_an_entity_that_starts_below_the_threshold_crosses_at_day_zero(
    config: DecayConfig,
) -> None:
    faint = EntityState(base=0.3, half_life_days=30)
    assert entity_crossing_days(faint, config=config) == 0.0
