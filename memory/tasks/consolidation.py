"""The nightly sleep cycle, queued by Celery beat (seeded from `CORTEX_BEAT_SCHEDULE`)."""

from __future__ import annotations

import logging
from datetime import datetime

from celery import shared_task

from memory.services.consolidation import ConsolidationBusy, consolidation_run

logger = logging.getLogger(__name__)


@shared_task(
    name="memory.consolidation_run",
    acks_late=True,
    ignore_result=True,
    soft_time_limit=3 * 3600,
    time_limit=3 * 3600 + 60,
)
def consolidation_run_task(as_of: str | None = None, trigger: str = "beat") -> dict[str, object]:
    """Run the sleep cycle (as of `as_of`, an ISO time, or now). Delivered twice, the
    second delivery either finds the first running and skips, or runs again harmlessly."""
    now = datetime.fromisoformat(as_of) if as_of else None
    try:
        run = consolidation_run(now=now, trigger=trigger)
    except ConsolidationBusy:
        logger.info("sleep cycle skipped: another run is in progress")
        return {"skipped": "busy"}
    return {"run": run.pk, "status": run.status}
