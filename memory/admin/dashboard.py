"""The admin's home is the Cortex dashboard: the size of each layer, what waits for review,
the last sleep cycles, the strength distribution, the threshold crossings and the health
report of `cortex doctor` (memory/admin/doctor_panel.py). Other apps add their review queues
with `review_queue_register` (memory never imports them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib import admin
from django.urls import NoReverseMatch, reverse

from memory import clock
from memory.admin.doctor_panel import doctor_panel
from memory.admin.paging import COUNT_CAP
from memory.admin.plots import crossings_svg, strength_histogram_svg
from memory.compiled.text import counted
from memory.config import config_get
from memory.selectors.dashboard import (
    DayCrossings,
    Histogram,
    crossings_per_day,
    layer_counts,
    review_conflicts_open,
    review_dark_matter_open,
    sleep_cycle_recent,
    strength_histogram,
)

admin.site.site_header = "Cortex"
admin.site.site_title = "Cortex"
admin.site.index_title = "Cortex"
admin.site.index_template = "admin/cortex/index.html"

RUNS_SHOWN = 8
CROSSING_DAYS = 30
HISTOGRAM_BINS = 20
HISTOGRAM_TOP = 1.0
HISTOGRAM_SAMPLE_ROWS = 200_000


@dataclass(frozen=True)
class ReviewQueue:
    label: str
    count: Callable[[], int]
    url_name: str
    query: str = ""


_QUEUES: dict[str, ReviewQueue] = {}


def review_queue_register(name: str, queue: ReviewQueue) -> None:
    """A queue shown under "Waiting for review": its exact count (keep it a small, indexed
    query) and the admin list it links to."""
    _QUEUES[name] = queue


review_queue_register("dark_matter", ReviewQueue(
    "dark matter (open review items)", review_dark_matter_open,
    "admin:memory_reviewitem_changelist", "?status__exact=open"))
review_queue_register("conflicts", ReviewQueue(
    "open conflicts", review_conflicts_open, "admin:memory_conflict_changelist",
    "?status__exact=open"))


def _url(name: str, *args: Any) -> str:
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return ""


def _run_counts(counts: dict[str, Any]) -> str:
    """What a run did, in a line: what it evaluated, what crossed a threshold, how many
    compiled truths it wrote (every count and duration is on the run's page)."""
    if not counts:
        return "—"

    def n(key: str) -> int:
        return int(counts.get(key) or 0)

    evaluated = (f"{counted(n('entities_evaluated'), 'entity', 'entities')} and "
                 f"{counted(n('relations_evaluated'), 'relation', 'relations')} evaluated")
    crossed = (f"entities {n('entities_rose')} rose, {n('entities_fell')} fell; "
               f"relations {n('relations_rose')} rose, {n('relations_fell')} fell")
    written = counted(n("compiled_written"), "compiled truth", "compiled truths")
    return f"{evaluated}; {crossed}; {written} written"


def _histogram_caption(histogram: Histogram) -> str:
    shown = sum(histogram.counts)
    sampled = ("" if histogram.sampled_percent is None else
               f" in a block sample of about {histogram.sampled_percent:.2f}% of the table")
    return (f"The stored strength_consolidated (each entity's strength at the last sleep "
            f"cycle, not now) of {shown} entities neither merged nor pinned{sampled}; the "
            f"last bin holds everything at or above {histogram.edges[-2]:.2f}; "
            f"{histogram.unknown} never consolidated yet (not drawn).")


def _totals(days: list[DayCrossings]) -> str:
    return (f"In all: {sum(d.rose for d in days)} rose, {sum(d.fell for d in days)} fell.")


def dashboard_context() -> dict[str, Any]:
    config = config_get()
    histogram = strength_histogram(bins=HISTOGRAM_BINS, top=HISTOGRAM_TOP,
                                   sample_rows=HISTOGRAM_SAMPLE_ROWS)
    crossings = crossings_per_day(days=CROSSING_DAYS, now=clock.now())
    layers = [{"label": c.label, "count": c.count, "estimated": c.estimated,
               "url": _url(f"admin:{c.model._meta.app_label}_{c.model._meta.model_name}"
                           "_changelist")} for c in layer_counts(cap=COUNT_CAP)]
    queues = [{"label": q.label, "count": q.count(), "url": _url(q.url_name) + q.query}
              for q in _QUEUES.values()]
    runs = [{"id": r.pk, "as_of": r.as_of, "status": r.status, "trigger": r.trigger,
             "duration_ms": r.duration_ms, "counts": _run_counts(r.counts),
             "url": _url("admin:memory_sleepcyclerun_change", r.pk)}
            for r in sleep_cycle_recent(limit=RUNS_SHOWN)]
    return {
        "cap": COUNT_CAP, "layers": layers, "queues": queues, "runs": runs,
        "histogram": strength_histogram_svg(histogram,
                                            threshold=config.thresholds.entity_strength),
        "histogram_caption": _histogram_caption(histogram), "days": CROSSING_DAYS,
        "crossings_entities": crossings_svg(crossings["entities"], label="entity crossings"),
        "crossings_relations": crossings_svg(crossings["relations"],
                                             label="relation crossings"),
        "crossings_totals": {kind: _totals(days) for kind, days in crossings.items()},
        "doctor": doctor_panel(),
    }
