"""The nightly backup, queued by Celery beat (seeded from `CORTEX_BEAT_SCHEDULE`; its time
is edited in the admin, Periodic tasks, like the sleep cycle's)."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from memory.services.backup import backup_nightly


# No retry: a failed night is recorded (CORTEX_HOME/last-backup.json, shown by cortex doctor)
# and the next night starts over; `cortex backup` runs one at once.
@shared_task(
    name="memory.backup_nightly",
    acks_late=True,
    ignore_result=True,
    soft_time_limit=3 * 3600,
    time_limit=3 * 3600 + 60,
    max_retries=0,
)
def backup_nightly_task() -> dict[str, object]:
    """A backup into backup.directory, keeping the last backup.keep there."""
    report, removed = backup_nightly(home=settings.CORTEX_HOME)
    return {"path": report.path, "events": report.events, "removed": len(removed)}
