"""Celery tasks of insight: the analysis chain, and the sweep that restarts it."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from insight.services.analysis import analysis_batch_run, analysis_enqueue, analyzed_sources


@shared_task(name="insight.analysis_run", acks_late=True,
             ignore_result=True, soft_time_limit=600, time_limit=660,
             autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def analysis_run_task(source: str, batch_size: int | None = None) -> dict[str, object]:
    """One batch of `source`'s unanalyzed events; queues the next while events remain.
    Delivered twice, the second finds the cursors moved (or locked) and does no harm."""
    report = analysis_batch_run(source=source, batch_size=batch_size)
    if report.more:
        analysis_enqueue(sources=[source], batch_size=batch_size)
    return {"source": source, "events": report.events, "observations": report.observations}


# No retry: beat runs the sweep again two minutes later.
@shared_task(name="insight.analysis_sweep",
             acks_late=True, ignore_result=True, soft_time_limit=300, time_limit=360,
             max_retries=0)
def analysis_sweep_task() -> list[str]:
    """Start the chain for every analyzed source (beat runs this; a lost chain restarts)."""
    sources = analyzed_sources()
    analysis_enqueue(sources=sources)
    return sources
