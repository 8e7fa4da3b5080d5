"""The nightly sleep cycle, queued by Celery beat (seeded from `CORTEX_BEAT_SCHEDULE`)."""

from __future__ import annotations

import logging
from datetime import datetime

from celery import shared_task

from memory.services.locks import SleepCycleBusy
from memory.services.sleep_cycle import sleep_cycle_run

logger = logging.getLogger(__name__)


# No retry: a failed run is recorded with its error and the next night's run starts over; the
# operator can run it at once from the admin or with `cortex sleep`.
@shared_task(
    name="memory.sleep_cycle_run",
    acks_late=True,
    ignore_result=True,
    soft_time_limit=3 * 3600,
    time_limit=3 * 3600 + 60,
    max_retries=0,
)
def sleep_cycle_run_task(as_of: str | None = None, trigger: str = "beat") -> dict[str, object]:
    """Run the sleep cycle (as of `as_of`, an ISO time, or now). Delivered twice, the
    second delivery either finds the first running and skips, or runs again harmlessly."""
    now = datetime.fromisoformat(as_of) if as_of else None
    try:
        run = sleep_cycle_run(now=now, trigger=trigger)
    except SleepCycleBusy:
        logger.info("sleep cycle skipped: another run is in progress")
        return {"skipped": "busy"}
    return {"run": run.pk, "status": run.status}
