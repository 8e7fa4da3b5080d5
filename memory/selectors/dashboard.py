"""Reads for the console's dashboard: how big each layer is (PostgreSQL's estimate for the big
tables, never a full COUNT(*) on them), the last sleep cycles, the strength distribution and
the threshold crossings per day."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.db import connection
from django.db.models import Count, Model, QuerySet
from django.db.models.functions import TruncDate
from django.utils import timezone

from memory import clock
from memory.models import (
    CompiledTruth,
    Conflict,
    ConflictStatus,
    Entity,
    EntityStatus,
    EntityTransition,
    Fact,
    Memory,
    MemoryEvent,
    Observation,
    Relation,
    RelationTransition,
    ReviewItem,
    ReviewStatus,
    SleepCycleRun,
)

LAYERS: tuple[tuple[str, type[Model]], ...] = (
    ("raw events", MemoryEvent),
    ("observations", Observation),
    ("entities", Entity),
    ("relations", Relation),
    ("facts", Fact),
    ("memories", Memory),
    ("compiled-truth versions", CompiledTruth),
)


@dataclass(frozen=True)
class LayerCount:
    label: str
    model: type[Model]
    count: int
    estimated: bool


@dataclass(frozen=True)
class Histogram:
    edges: tuple[float, ...]  # bins + 1 edges; the last bin also holds everything above
    counts: tuple[int, ...]
    unknown: int  # rows with no stored value yet
    sampled_percent: float | None  # None: every row was read


@dataclass(frozen=True)
class DayCrossings:
    day: date
    rose: int
    fell: int


def table_estimates(*, models: tuple[type[Model], ...]) -> dict[str, int]:
    """`pg_class.reltuples` per table (-1 when never analyzed)."""
    tables = [m._meta.db_table for m in models]
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname, reltuples::bigint FROM pg_class "
                       "WHERE oid = ANY(%s::regclass[])", [tables])
        return {name: int(value) for name, value in cursor.fetchall()}


def capped_count(*, queryset: QuerySet[Model], cap: int) -> int:
    """Exact up to `cap`; `cap + 1` means "more" (one scan of at most cap + 1 rows)."""
    return queryset[: cap + 1].count()


def layer_counts(*, cap: int) -> list[LayerCount]:
    """Each layer's size: exact when the table is small, the planner's estimate above `cap`."""
    estimates = table_estimates(models=tuple(model for _, model in LAYERS))
    counts = []
    for label, model in LAYERS:
        estimate = estimates.get(model._meta.db_table, -1)
        if estimate > cap:
            counts.append(LayerCount(label, model, estimate, estimated=True))
            continue
        exact = capped_count(queryset=model._default_manager.all(), cap=cap)
        counts.append(LayerCount(label, model, max(exact, estimate), estimated=exact > cap))
    return counts


def review_dark_matter_open() -> int:
    return ReviewItem.objects.filter(status=ReviewStatus.OPEN).count()


def review_conflicts_open() -> int:
    return Conflict.objects.filter(status=ConflictStatus.OPEN).count()


def sleep_cycle_recent(*, limit: int) -> list[SleepCycleRun]:
    return list(SleepCycleRun.objects.order_by("-started_at", "-id").defer("steps")[:limit])


_HISTOGRAM = """
SELECT width_bucket(strength_consolidated, 0, %s, %s) AS bucket, count(*)
FROM memory_entity {sample}
WHERE status <> %s AND NOT pinned
GROUP BY bucket
"""


def strength_histogram(*, bins: int, top: float, sample_rows: int) -> Histogram:
    """The stored `strength_consolidated` (the value at the last sleep cycle) of the
    entities neither merged nor pinned, in `bins` bins over [0, top]; a table larger than
    `sample_rows` is read through a block sample of about that many rows."""
    estimate = table_estimates(models=(Entity,)).get(Entity._meta.db_table, -1)
    percent = None if estimate <= sample_rows else max(0.01, 100.0 * sample_rows / estimate)
    sample = "" if percent is None else f"TABLESAMPLE SYSTEM ({percent:.4f})"
    with connection.cursor() as cursor:
        cursor.execute(_HISTOGRAM.format(sample=sample), [top, bins, EntityStatus.MERGED])
        rows = cursor.fetchall()
    counts = [0] * bins
    unknown = 0
    for bucket, n in rows:
        if bucket is None:
            unknown += int(n)
        else:
            counts[min(max(int(bucket), 1), bins) - 1] += int(n)
    edges = tuple(top * i / bins for i in range(bins + 1))
    return Histogram(edges=edges, counts=tuple(counts), unknown=unknown, sampled_percent=percent)


def _per_day(queryset: QuerySet[Model], *, runs: list[int]) -> dict[tuple[date, str], int]:
    rows = (queryset.filter(run_id__in=runs).annotate(day=TruncDate("run__as_of"))
            .values("day", "direction").annotate(n=Count("id")).order_by())
    return {(row["day"], row["direction"]): row["n"] for row in rows}


def crossings_per_day(*, days: int, now: datetime | None = None
                      ) -> dict[str, list[DayCrossings]]:
    """What rose above or fell below its threshold, per day of the sleep cycles' `as_of`, over
    the last `days` days (every day listed, zero when nothing crossed)."""
    now = now or clock.now()
    today = timezone.localdate(now)
    first = today - timedelta(days=days - 1)
    # The runs first (a few per day), then their transitions through the run_id index.
    runs = list(SleepCycleRun.objects.filter(as_of__date__gte=first, as_of__date__lte=today)
                .values_list("id", flat=True))
    found = {"entities": _per_day(EntityTransition.objects.all(), runs=runs),
             "relations": _per_day(RelationTransition.objects.all(), runs=runs)}
    calendar = [first + timedelta(days=i) for i in range(days)]
    return {kind: [DayCrossings(day, counts.get((day, "rose"), 0), counts.get((day, "fell"), 0))
                   for day in calendar] for kind, counts in found.items()}
