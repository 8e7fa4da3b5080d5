"""Reads of relations with their weight evaluated at `now`, in PostgreSQL."""

from __future__ import annotations

from datetime import datetime

from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet

from memory import clock
from memory.config import DecayConfig, config_get
from memory.decay.sql import num, weight_sql
from memory.models import Relation

WEIGHT_NOW = "weight_now"
VISIBLE_NOW = "visible_now"


def relation_with_weight(
    *, now: datetime | None = None, queryset: QuerySet[Relation] | None = None,
    config: DecayConfig | None = None,
) -> QuerySet[Relation]:
    """Relations annotated with `weight_now` and `visible_now` (weight >= the threshold)."""
    config = config or config_get()
    queryset = Relation.objects.all() if queryset is None else queryset
    weight = weight_sql(now=now or clock.now(), config=config)
    visible = ExpressionWrapper(
        Q(**{f"{WEIGHT_NOW}__gte": num(config.thresholds.relation_weight)}),
        output_field=BooleanField(),
    )
    return queryset.annotate(**{WEIGHT_NOW: weight}).annotate(**{VISIBLE_NOW: visible})


def relation_visible(
    *, now: datetime | None = None, queryset: QuerySet[Relation] | None = None,
    config: DecayConfig | None = None,
) -> QuerySet[Relation]:
    """What standard search, traversal and context see: weight now >= the threshold."""
    return relation_with_weight(now=now, queryset=queryset, config=config).filter(
        **{VISIBLE_NOW: True}
    )
