"""Celery tasks of the Retain Job. They only adapt: ids in, a service called, a retry when
the retain lock stays taken or the database is away. Late acks, a requeue when the worker
dies, prefetch 1 (the settings); redelivery is harmless (retained observations are no
longer pending) and capped per observation by `retain.max_attempts`."""

from __future__ import annotations

from celery import Task, shared_task
from django.db import InterfaceError, OperationalError

from memory.config import config_get
from memory.queueing import task_send
from memory.services.embeddings import embedding_passes_run
from memory.services.locks import RetainBusy
from memory.services.retain import retain_batch_run, retain_continue, retain_sweep


@shared_task(bind=True, name="memory.retain",
             acks_late=True, reject_on_worker_lost=True, ignore_result=True,
             soft_time_limit=900, time_limit=960, max_retries=50,
             autoretry_for=(OperationalError, InterfaceError), retry_backoff=True)
def retain_task(self: Task, ids: list[str]) -> dict[str, object]:
    """Retain these observations and every pending one before them (canonical order)."""
    try:
        report = retain_batch_run(ids=ids)
    except RetainBusy as exc:
        raise self.retry(exc=exc, countdown=5) from exc
    if report.more and report.processed:  # more waits below the horizon: go on with it
        retain_continue()
    if report.chunks.created:
        task_send("memory.retain_embed")
    return report.as_dict()


@shared_task(bind=True, name="memory.retain_embed",
             acks_late=True, reject_on_worker_lost=True, ignore_result=True,
             soft_time_limit=1800, time_limit=1860, max_retries=20,
             autoretry_for=(OperationalError, InterfaceError), retry_backoff=True)
def retain_embed_task(self: Task) -> dict[str, int]:
    """Embed new entities' names, then merge the duplicates the embeddings reveal."""
    try:
        report = embedding_passes_run()
    except RetainBusy as exc:
        raise self.retry(exc=exc, countdown=10) from exc
    if report.memories_embedded >= config_get().memories.embed_per_pass:
        task_send("memory.retain_embed")  # more memories wait for their vectors
    return {"embedded": report.embedded, "checked": report.checked, "merged": report.merged,
            "memories_embedded": report.memories_embedded}


# No retry: beat runs the sweep again two minutes later.
@shared_task(name="memory.retain_sweep", acks_late=True,
             ignore_result=True, soft_time_limit=300, time_limit=360, max_retries=0)
def retain_sweep_task() -> dict[str, int]:
    """Re-queue pending observations whose task was lost, and the embedding pass (beat)."""
    queued = retain_sweep()
    task_send("memory.retain_embed")
    return {"queued": queued}
