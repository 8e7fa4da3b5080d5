"""The formulas of `memory.decay.formulas` as Django expressions, evaluated in PostgreSQL.

A queryset can annotate, filter and order by strength or weight at any `now`
without leaving the database. Every constant comes from the `DecayConfig`
passed in; columns can be replaced by expressions (`EntityColumns`), so a
service can store the strength an UPDATE is about to produce.
"""

from __future__ import annotations

import dataclasses
import math
from datetime import datetime
from typing import Any

from django.db.models import Case, DateTimeField, F, FloatField, Func, Value, When
from django.db.models.expressions import ExpressionWrapper
from django.db.models.fields import DurationField
from django.db.models.functions import Cast, Exp, Greatest, Ln, Power
from django.db.models.lookups import Exact, GreaterThan, LessThan, LessThanOrEqual

from memory.config import DecayConfig
from memory.decay.formulas import FLOOR_LN, LN2, SECONDS_PER_DAY

Expr = Any  # a Django expression (F, Value, Func, CombinedExpression, ...)


def num(value: float) -> Expr:
    """A float8 constant (a bare literal would be `numeric` in PostgreSQL)."""
    return Cast(Value(float(value)), output_field=FloatField())


def as_float(column: Expr) -> Expr:
    return Cast(column, output_field=FloatField())


class _EpochSeconds(Func):
    template = "date_part('epoch', %(expressions)s)"
    output_field = FloatField()


def days_since(column: Expr, *, now: datetime) -> Expr:
    """GREATEST(0, days from `column` to `now`), like `formulas.days_between`."""
    interval = ExpressionWrapper(
        Value(now, output_field=DateTimeField()) - column, output_field=DurationField()
    )
    return Greatest(num(0.0), _EpochSeconds(interval) / num(SECONDS_PER_DAY))


def _lookup_table(column: Expr, table: dict[str, float], *, default: Expr) -> Expr:
    whens = [When(Exact(column, Value(key)), then=num(value)) for key, value in table.items()]
    return Case(*whens, default=default, output_field=FloatField())


@dataclasses.dataclass(frozen=True)
class EntityColumns:
    """Where the strength expression reads each parameter from (columns by default)."""

    base: Expr = F("base")
    half_life_days: Expr = F("half_life_days")
    valence: Expr = F("valence")
    pos: Expr = F("pos")
    neg: Expr = F("neg")
    retrieval_count: Expr = F("retrieval_count")
    route: Expr = F("route")
    pinned: Expr = F("pinned")
    last_reinforced_at: Expr = F("last_reinforced_at")

    def replace(self, **changes: Expr) -> EntityColumns:
        return dataclasses.replace(self, **changes)


def reward_factor_sql(cols: EntityColumns, *, config: DecayConfig) -> Expr:
    balance = as_float(cols.pos - cols.neg) / as_float(cols.pos + cols.neg + 1)
    return num(1.0) + num(config.entity.reward_weight) * balance


def retrieval_boost_sql(cols: EntityColumns, *, config: DecayConfig) -> Expr:
    log2 = Ln(as_float(cols.retrieval_count + 1)) / num(LN2)
    return num(1.0) + num(config.entity.retrieval_weight) * log2


def route_factor_sql(cols: EntityColumns, *, config: DecayConfig) -> Expr:
    factors = config.routes.half_life_factors
    return _lookup_table(cols.route, factors, default=num(factors["normal"]))


def emotional_sql(cols: EntityColumns, *, config: DecayConfig) -> Expr:
    multipliers = config.entity.emotional_multipliers
    return _lookup_table(cols.valence, multipliers, default=num(multipliers["neutral"]))


def _extended(cols: EntityColumns, dt: Expr, config: DecayConfig) -> tuple[Expr, Expr, Expr]:
    """(amplitude, -ln(decay), decay) of the extended model."""
    half_life = (
        cols.half_life_days
        * reward_factor_sql(cols, config=config)
        * route_factor_sql(cols, config=config)
    )
    amplitude = (
        cols.base * retrieval_boost_sql(cols, config=config) * emotional_sql(cols, config=config)
    )
    ratio = dt / half_life
    return amplitude, ratio * num(LN2), Power(num(0.5), ratio)


def _simplified(cols: EntityColumns, dt: Expr, config: DecayConfig) -> tuple[Expr, Expr, Expr]:
    """(amplitude, -ln(decay), decay) of the simplified model."""
    per_access = num(config.entity.simplified_reinforcement_per_access)
    amplitude = cols.base * (num(1.0) + per_access * as_float(cols.retrieval_count))
    ratio = dt / (cols.half_life_days * route_factor_sql(cols, config=config))
    return amplitude, ratio, Exp(-ratio)


def strength_sql(
    *, now: datetime, config: DecayConfig, cols: EntityColumns | None = None
) -> Expr:
    """Entity strength at `now`; 'Infinity' when pinned; 0 below e^FLOOR_LN."""
    cols = cols or EntityColumns()
    dt = days_since(cols.last_reinforced_at, now=now)
    model = _extended if config.entity_model == "extended" else _simplified
    amplitude, fall, decay = model(cols, dt, config)
    return Case(
        When(Exact(cols.pinned, Value(True)), then=num(math.inf)),
        When(LessThanOrEqual(amplitude, num(0.0)), then=num(0.0)),
        When(LessThan(Ln(amplitude) - fall, num(FLOOR_LN)), then=num(0.0)),
        default=amplitude * decay,
        output_field=FloatField(),
    )


def sigma_sql(*, config: DecayConfig, relation_class: Expr | None = None) -> Expr:
    column = relation_class if relation_class is not None else F("relation_class")
    graph = config.graph
    return _lookup_table(column, graph.classes, default=num(graph.sigma_of(graph.default_class)))


def weight_sql(
    *, now: datetime, config: DecayConfig, last_reinforced_at: Expr | None = None
) -> Expr:
    """Relation weight_temporal at `now`."""
    column = last_reinforced_at if last_reinforced_at is not None else F("last_reinforced_at")
    ratio = days_since(column, now=now) / sigma_sql(config=config)
    return Case(
        When(GreaterThan(ratio, num(-FLOOR_LN)), then=num(0.0)),
        default=Exp(-ratio),
        output_field=FloatField(),
    )
