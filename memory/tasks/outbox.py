"""The outbox drain (docs/nats.md): publishes the stored Observations on NATS. Queued on
commit by every write that fills the outbox, and by beat every minute (a lost task, NATS
back after an outage); a no-op when NATS_URL is not set. Idempotent: rows leave the outbox
only once acked, and JetStream drops a repeated Nats-Msg-Id."""

from __future__ import annotations

from celery import Task, shared_task
from django.db import InterfaceError, OperationalError

from memory.nats.publisher import observation_publisher
from memory.queueing import task_send
from memory.services.locks import OutboxBusy
from memory.services.outbox import DRAIN_TASK, nats_enabled, outbox_drain

UNREACHABLE_RETRY_SECONDS = 5


@shared_task(bind=True, name=DRAIN_TASK,
             acks_late=True, reject_on_worker_lost=True, ignore_result=True,
             soft_time_limit=240, time_limit=300, max_retries=5,
             autoretry_for=(OperationalError, InterfaceError), retry_backoff=True)
def outbox_drain_task(self: Task) -> dict[str, int | bool]:
    """Publish the outbox in order; retried shortly while another drain holds the lock or
    NATS is away (then beat's sweep goes on trying)."""
    if not nats_enabled():
        return {"published": 0}
    try:
        with observation_publisher() as publish:
            report = outbox_drain(publish=publish)
    except OutboxBusy as exc:
        if self.request.retries < (self.max_retries or 0):
            raise self.retry(exc=exc, countdown=1) from exc
        return {"busy": True}
    if report.failed and self.request.retries < (self.max_retries or 0):
        raise self.retry(countdown=UNREACHABLE_RETRY_SECONDS * 2**self.request.retries)
    if report.more:
        task_send(DRAIN_TASK)
    return report.as_dict()
