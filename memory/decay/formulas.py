"""The decay formulas of docs/decay.md, as pure functions.

No ORM, no clock: every function takes its inputs, `now` where time matters,
and the parameters it needs from a `DecayConfig` passed in. `memory.decay.sql`
mirrors them as SQL expressions; the two agree to 1e-9.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from memory.config import DecayConfig

SECONDS_PER_DAY = 86400.0
INFINITE = math.inf
LN2 = math.log(2)
# A value below e^FLOOR_LN counts as 0. PostgreSQL raises on float underflow
# instead of returning 0, so both sides cut there (e^-700 is about 1e-304).
FLOOR_LN = -700.0


def days_between(*, since: datetime, now: datetime) -> float:
    """Days from `since` to `now` as a float, never negative (a future `since` counts as now)."""
    return max(0.0, (now - since).total_seconds() / SECONDS_PER_DAY)


def weight_temporal(*, dt_days: float, sigma_days: float) -> float:
    ratio = dt_days / sigma_days
    return 0.0 if -ratio < FLOOR_LN else math.exp(-ratio)


def reward_factor(*, pos: int, neg: int, reward_weight: float) -> float:
    return 1.0 + reward_weight * ((pos - neg) / (pos + neg + 1))


def retrieval_boost(*, retrieval_count: int, retrieval_weight: float) -> float:
    return 1.0 + retrieval_weight * math.log2(retrieval_count + 1)


def effective_half_life(*, half_life_days: float, reward: float, route_factor: float) -> float:
    return half_life_days * reward * route_factor


def decay_extended(*, dt_days: float, effective_half_life_days: float) -> float:
    return float(0.5 ** (dt_days / effective_half_life_days))


def decay_simplified(*, dt_days: float, half_life_days: float) -> float:
    return math.exp(-dt_days / half_life_days)


@dataclass(frozen=True)
class EntityState:
    """The stored parameters that decide an entity's strength."""

    base: float
    half_life_days: float
    valence: str = "neutral"
    pos: int = 0
    neg: int = 0
    retrieval_count: int = 0
    route: str = "normal"
    pinned: bool = False


@dataclass(frozen=True)
class StrengthShape:
    """strength(dt) = amplitude x decay(dt, time_constant), per the configured model.

    extended:   amplitude = base x retrieval_boost x emotional, decay = 0.5^(dt / T)
    simplified: amplitude = base x (1 + reinforcement_factor),  decay = exp(-dt / T)
    """

    model: str
    amplitude: float
    time_constant: float
    factors: dict[str, float]

    def at(self, dt_days: float) -> float:
        ratio = dt_days / self.time_constant
        log_decay = -ratio * LN2 if self.model == "extended" else -ratio
        if self.amplitude <= 0 or math.log(self.amplitude) + log_decay < FLOOR_LN:
            return 0.0
        if self.model == "extended":
            return self.amplitude * decay_extended(
                dt_days=dt_days, effective_half_life_days=self.time_constant
            )
        return self.amplitude * decay_simplified(dt_days=dt_days, half_life_days=self.time_constant)

    def crossing_days(self, threshold: float) -> float:
        """dt at which strength first drops below `threshold` (0 if it starts at or below)."""
        if self.amplitude <= threshold:
            return 0.0
        ratio = self.amplitude / threshold
        log = math.log2(ratio) if self.model == "extended" else math.log(ratio)
        return self.time_constant * log


def strength_shape(state: EntityState, *, config: DecayConfig) -> StrengthShape:
    route = config.route_factor(state.route)
    if config.entity_model == "simplified":
        reinforcement = config.entity.simplified_reinforcement_per_access * state.retrieval_count
        return StrengthShape(
            model="simplified",
            amplitude=state.base * (1.0 + reinforcement),
            time_constant=state.half_life_days * route,
            factors={"reinforcement_factor": reinforcement, "route_factor": route},
        )
    reward = reward_factor(pos=state.pos, neg=state.neg, reward_weight=config.entity.reward_weight)
    boost = retrieval_boost(
        retrieval_count=state.retrieval_count, retrieval_weight=config.entity.retrieval_weight
    )
    emotional = config.emotional(state.valence)
    return StrengthShape(
        model="extended",
        amplitude=state.base * boost * emotional,
        time_constant=effective_half_life(
            half_life_days=state.half_life_days, reward=reward, route_factor=route
        ),
        factors={"reward_factor": reward, "retrieval_boost": boost,
                 "emotional_multiplier": emotional, "route_factor": route},
    )


def strength_after(state: EntityState, *, dt_days: float, config: DecayConfig) -> float:
    """Strength `dt_days` after the last reinforcement; infinite when pinned."""
    if state.pinned:
        return INFINITE
    return strength_shape(state, config=config).at(dt_days)


def entity_strength(
    state: EntityState, *, last_reinforced_at: datetime, now: datetime, config: DecayConfig
) -> float:
    dt = days_between(since=last_reinforced_at, now=now)
    return strength_after(state, dt_days=dt, config=config)


def entity_crossing_days(
    state: EntityState, *, config: DecayConfig, threshold: float | None = None
) -> float | None:
    """Days after the last reinforcement when strength drops below the entity threshold.

    None when it never does (pinned).
    """
    if state.pinned:
        return None
    limit = config.thresholds.entity_strength if threshold is None else threshold
    return strength_shape(state, config=config).crossing_days(limit)


def relation_sigma(*, relation_class: str, config: DecayConfig) -> float:
    return config.graph.sigma_of(relation_class)


def relation_weight(
    *, relation_class: str, last_reinforced_at: datetime, now: datetime, config: DecayConfig
) -> float:
    dt = days_between(since=last_reinforced_at, now=now)
    sigma = relation_sigma(relation_class=relation_class, config=config)
    return weight_temporal(dt_days=dt, sigma_days=sigma)


def relation_crossing_days(
    *, relation_class: str, config: DecayConfig, threshold: float | None = None
) -> float:
    """Days after the last reinforcement when weight drops below the relation threshold."""
    limit = config.thresholds.relation_weight if threshold is None else threshold
    if limit >= 1.0:
        return 0.0
    return relation_sigma(relation_class=relation_class, config=config) * math.log(1.0 / limit)


def relation_visible(*, weight: float, config: DecayConfig) -> bool:
    return weight >= config.thresholds.relation_weight


def entity_injectable(*, strength: float, config: DecayConfig) -> bool:
    return strength >= config.thresholds.entity_strength
