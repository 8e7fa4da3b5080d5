"""The observation outbox (docs/nats.md): every Observation stored while NATS is on gets a
row in the same transaction, and a drain publishes the rows in commit order, one drain at a
time (the outbox lock), deleting each row once JetStream has acked it. NATS being away never
blocks or fails a write: the rows wait, and the next drain (queued on commit, swept by beat)
publishes them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from django.conf import settings

from memory.config import config_get
from memory.models.outbox import ObservationOutbox
from memory.queueing import task_enqueue
from memory.selectors.outbox import OutboxItem, outbox_batch
from memory.services.locks import outbox_lock

DRAIN_TASK = "memory.outbox_drain"

# Publishes the items in order; answers how many, from the first, JetStream acked.
Publish = Callable[[Sequence[OutboxItem]], int]


@dataclass
class OutboxDrainReport:
    published: int = 0
    dropped: int = 0
    failed: bool = False
    more: bool = False

    def as_dict(self) -> dict[str, int | bool]:
        return asdict(self)


def nats_enabled() -> bool:
    return bool(settings.NATS_URL)


def outbox_fill(*, observation_ids: Sequence[str]) -> int:
    """Rows for these newly stored observations, in this order, in the caller's transaction;
    the drain is queued on commit. Nothing when NATS is off."""
    if not observation_ids or not nats_enabled():
        return 0
    ObservationOutbox.objects.bulk_create(
        [ObservationOutbox(observation_id=observation_id) for observation_id in observation_ids])
    task_enqueue(DRAIN_TASK)
    return len(observation_ids)


def _drain_batch(items: Sequence[OutboxItem], publish: Publish,
                 report: OutboxDrainReport) -> None:
    messages = [item for item in items if item.body is not None]
    acked = publish(messages) if messages else 0
    gone = [item.outbox_id for item in items if item.body is None]
    done = [item.outbox_id for item in messages[:acked]] + gone
    ObservationOutbox.objects.filter(id__in=done).delete()
    report.published += acked
    report.dropped += len(gone)
    report.failed = acked < len(messages)


def outbox_drain(*, publish: Publish, max_batches: int | None = None) -> OutboxDrainReport:
    """Publish the outbox, batch after batch, until it is empty, a publish fails (the rest
    waits for the next drain) or `max_batches` were sent (`more`: queue another drain).
    OutboxBusy at once when another drain holds the lock."""
    section = config_get().nats
    batches = max_batches or section.drain_batches_per_task
    report = OutboxDrainReport()
    with outbox_lock():
        for _ in range(batches):
            items = outbox_batch(limit=section.drain_batch)
            if not items:
                return report
            _drain_batch(items, publish, report)
            if report.failed:
                return report
        report.more = bool(outbox_batch(limit=1))
    return report
