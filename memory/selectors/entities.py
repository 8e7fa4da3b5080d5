"""Reads of entities with their strength evaluated at `now`, in PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db.models import F, Max, QuerySet

from memory import clock
from memory.config import DecayConfig, config_get
from memory.decay.sql import strength_sql
from memory.models import Entity, EntityStatus, Namespace, RunStatus, SleepCycleRun

STRENGTH_NOW = "strength_now"
# Stored and inline values are computed by different statements (or Python);
# a relative slack absorbs their last-bit differences.
_BOUND_SLACK = 1e-12


def entity_with_strength(
    *, now: datetime | None = None, queryset: QuerySet[Entity] | None = None,
    config: DecayConfig | None = None,
) -> QuerySet[Entity]:
    """Entities annotated with `strength_now` (infinite when pinned)."""
    queryset = Entity.objects.all() if queryset is None else queryset
    expression = strength_sql(now=now or clock.now(), config=config or config_get())
    return queryset.annotate(**{STRENGTH_NOW: expression})


def entity_strongest(
    *, namespace: Namespace, now: datetime | None = None, limit: int = 50,
    statuses: Sequence[str] = (EntityStatus.ACTIVE,), config: DecayConfig | None = None,
) -> list[Entity]:
    """The `limit` strongest entities of one namespace at `now`, pinned first.

    Exact. Strength never rises between two writes, so the stored strength of
    a row bounds its strength now: the best `limit` rows by stored value give a
    floor, and only rows stored at or above it, or with no stored value (few,
    through the (namespace, strength) index), are evaluated and ranked. When the stored
    values cannot be trusted as bounds (never consolidated with this config,
    or evaluated at a later `now`), every row of the namespace is ranked.
    """
    now = now or clock.now()
    config = config or config_get()
    rows = entity_with_strength(
        now=now, config=config,
        queryset=Entity.objects.filter(namespace=namespace, status__in=list(statuses)),
    )
    ranked = rows.order_by(f"-{STRENGTH_NOW}", "id")
    if not _stored_strength_bounds(now=now, config=config):
        return list(ranked[:limit])
    stored = F("strength").desc(nulls_first=True)
    sample = list(rows.order_by(stored).values_list(STRENGTH_NOW, flat=True)[:limit])
    if len(sample) < limit:
        return list(ranked[:limit])
    floor = min(sample) * (1 - _BOUND_SLACK)
    # Two index range scans (an OR of both would scan the whole namespace).
    bounded = list(ranked.filter(strength__gte=floor)[:limit])
    unknown = list(ranked.filter(strength__isnull=True)[:limit])
    merged = sorted([*bounded, *unknown], key=lambda e: (-getattr(e, STRENGTH_NOW), e.pk))
    return merged[:limit]


def _stored_strength_bounds(*, now: datetime, config: DecayConfig) -> bool:
    last = (
        SleepCycleRun.objects.filter(status=RunStatus.SUCCEEDED)
        .order_by("-finished_at").values_list("config_digest", flat=True).first()
    )
    latest = SleepCycleRun.objects.aggregate(latest=Max("as_of"))["latest"]
    return last == config.digest and latest is not None and latest <= now
