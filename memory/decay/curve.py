"""Strength and weight curves: what the config does, day by day (pure)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from memory.config import DecayConfig, TaxonomyNode
from memory.decay.formulas import (
    EntityState,
    days_between,
    entity_crossing_days,
    relation_crossing_days,
    relation_sigma,
    strength_after,
    strength_shape,
    weight_temporal,
)

# With no --days, a curve runs this long, or 10% past its crossing when that is later.
DEFAULT_DAYS = 90
# An entity's timeline projects at least this far past now.
PROJECTION_DAYS = 30


@dataclass(frozen=True)
class Curve:
    params: dict[str, Any]
    points: list[tuple[int, float | None]]
    crosses_at_day: float | None

    def as_json(self) -> dict[str, Any]:
        return {
            "params": self.params,
            "points": [{"day": day, "value": value} for day, value in self.points],
            "crosses_at_day": self.crosses_at_day,
        }


def default_days(crossing: float | None) -> int:
    if crossing is None:
        return DEFAULT_DAYS
    return max(DEFAULT_DAYS, math.ceil(crossing * 1.1))


def _finite(value: float) -> float | None:
    return None if math.isinf(value) else value


def entity_curve(
    *, node: TaxonomyNode, config: DecayConfig, days: int | None = None,
    valence: str | None = None, retrievals: int = 0, pos: int = 0, neg: int = 0,
    route: str = "normal",
) -> Curve:
    """An entity created under `node` with its defaults, never reinforced again."""
    state = EntityState(
        base=node.base_strength, half_life_days=node.half_life_days,
        valence=valence or node.valence, pos=pos, neg=neg, retrieval_count=retrievals,
        route=route, pinned=node.pinned,
    )
    crossing = entity_crossing_days(state, config=config)
    days = default_days(crossing) if days is None else days
    points = [(day, _finite(strength_after(state, dt_days=day, config=config)))
              for day in range(days + 1)]
    params = {"namespace": node.pattern, **entity_params(state, config=config), "days": days}
    return Curve(params=params, points=points, crosses_at_day=crossing)


def entity_params(state: EntityState, *, config: DecayConfig) -> dict[str, Any]:
    """Every parameter the configured model uses for this state, with its value."""
    shape = strength_shape(state, config=config)
    common: dict[str, Any] = {"entity_model": config.entity_model, "base": state.base,
              "half_life_days": state.half_life_days, "retrievals": state.retrieval_count,
              "route": state.route, "route_factor": shape.factors["route_factor"]}
    if config.entity_model == "simplified":
        model: dict[str, Any] = {
            "reinforcement_per_access": config.entity.simplified_reinforcement_per_access,
            "reinforcement_factor": shape.factors["reinforcement_factor"],
            "time_constant_days": shape.time_constant,
        }
    else:
        model = {
            "valence": state.valence,
            "emotional_multiplier": shape.factors["emotional_multiplier"],
            "retrieval_weight": config.entity.retrieval_weight,
            "retrieval_boost": shape.factors["retrieval_boost"],
            "pos": state.pos, "neg": state.neg,
            "reward_weight": config.entity.reward_weight,
            "reward_factor": shape.factors["reward_factor"],
            "effective_half_life_days": shape.time_constant,
        }
    return {**common, **model, "pinned": state.pinned,
            "threshold": config.thresholds.entity_strength}


def relation_curve(*, relation_type: str, config: DecayConfig, days: int | None = None) -> Curve:
    """A relation of this type asserted once, never again."""
    relation_class = config.graph.class_of(relation_type)
    sigma = relation_sigma(relation_class=relation_class, config=config)
    crossing = relation_crossing_days(relation_class=relation_class, config=config)
    days = default_days(crossing) if days is None else days
    points: list[tuple[int, float | None]] = [
        (day, weight_temporal(dt_days=day, sigma_days=sigma)) for day in range(days + 1)
    ]
    params = {"relation_type": relation_type, "relation_class": relation_class,
              "sigma_days": sigma, "threshold": config.thresholds.relation_weight, "days": days}
    return Curve(params=params, points=points, crosses_at_day=crossing)


@dataclass(frozen=True)
class Timeline:
    """An entity's strength from its last reinforcement, past `now` into the projection."""

    points: list[tuple[datetime, float]]
    now: datetime
    crosses_at: datetime | None
    threshold: float


def entity_timeline(
    state: EntityState, *, last_reinforced_at: datetime, now: datetime, config: DecayConfig,
    samples: int = 120,
) -> Timeline | None:
    """Strength sampled from the last reinforcement to past the crossing (or 30 days past
    `now`). None for a pinned entity, which has no curve."""
    if state.pinned:
        return None
    crossing = entity_crossing_days(state, config=config)
    crosses_at = last_reinforced_at + timedelta(days=crossing) if crossing is not None else None
    start = min(last_reinforced_at, now)
    end = max(now + timedelta(days=PROJECTION_DAYS), crosses_at or now)
    end = end + (end - start) / 10
    span = (end - start) / samples
    points = []
    for i in range(samples + 1):
        at = start + span * i
        dt = days_between(since=last_reinforced_at, now=at)
        points.append((at, strength_after(state, dt_days=dt, config=config)))
    return Timeline(points=points, now=now, crosses_at=crosses_at,
                    threshold=config.thresholds.entity_strength)
