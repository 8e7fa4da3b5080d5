"""Celery tasks of the Retain Job. They only adapt: ids in, a service called, a retry when
the retain lock stays taken. Late acks, a requeue when the worker dies, prefetch 1 (the
settings); redelivery is harmless (retained observations are no longer pending) and
capped per observation by `retain.max_attempts`."""

from __future__ import annotations

import logging

from celery import Task, shared_task

from memory.services.embeddings import embedding_passes_run
from memory.services.retain import (
    RetainBusy,
    retain_batch_run,
    retain_enqueue,
    retain_pending_ids,
    retain_sweep,
)

logger = logging.getLogger(__name__)


def _embed_later() -> None:
    try:
        retain_embed_task.delay()
    except Exception:  # the broker is away: the sweep queues it again
        logger.warning("retain: could not queue the embedding pass", exc_info=True)


@shared_task(bind=True, name="memory.retain", acks_late=True, reject_on_worker_lost=True,
             ignore_result=True, soft_time_limit=900, time_limit=960, max_retries=50)
def retain_task(self: Task, ids: list[str]) -> dict[str, object]:
    """Retain these observations and every pending one before them (canonical order)."""
    try:
        report = retain_batch_run(ids=ids)
    except RetainBusy as exc:
        raise self.retry(exc=exc, countdown=5) from exc
    if report.more and report.processed:  # more waits below the horizon: go on with it
        retain_enqueue(observation_ids=retain_pending_ids(limit=500))
    if report.chunks.created:
        _embed_later()
    return report.as_dict()


@shared_task(bind=True, name="memory.retain_embed", acks_late=True, reject_on_worker_lost=True,
             ignore_result=True, soft_time_limit=1800, time_limit=1860, max_retries=20)
def retain_embed_task(self: Task) -> dict[str, int]:
    """Embed new entities' names, then merge the duplicates the embeddings reveal."""
    try:
        report = embedding_passes_run()
    except RetainBusy as exc:
        raise self.retry(exc=exc, countdown=10) from exc
    return {"embedded": report.embedded, "checked": report.checked, "merged": report.merged}


@shared_task(name="memory.retain_sweep", acks_late=True, ignore_result=True)
def retain_sweep_task() -> dict[str, int]:
    """Re-queue pending observations whose task was lost, and the embedding pass (beat)."""
    queued = retain_sweep()
    _embed_later()
    return {"queued": queued}
