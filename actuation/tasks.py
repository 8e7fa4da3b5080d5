"""Celery tasks of actuation: applying an approved proposal (queued on approval), and the
sweep that queues again what a lost task left approved. Their queue is routed in the
settings (CELERY_TASK_ROUTES: the default queue)."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task

from actuation.services.applying import proposal_apply, proposal_fail
from actuation.services.sweep import approved_unapplied

logger = logging.getLogger(__name__)


# Queues: CELERY_TASK_ROUTES in cortex_site/settings.py.
@shared_task(bind=True, name="actuation.proposal_apply", acks_late=True,
             ignore_result=True, soft_time_limit=600, time_limit=660, max_retries=3,
             default_retry_delay=60)
def proposal_apply_task(self: Any, proposal_id: int) -> dict[str, object]:
    """Idempotent: an applied or failed proposal is left as is. A git or network error is
    retried; the last attempt fails the proposal with the error."""
    try:
        proposal = proposal_apply(proposal_id=proposal_id)
    except Exception as exc:
        if self.request.retries >= self.max_retries:
            proposal = proposal_fail(proposal_id=proposal_id, reason=f"applying failed: {exc}")
            return {"proposal": proposal_id, "state": proposal.state}
        raise self.retry(exc=exc) from exc
    return {"proposal": proposal_id, "state": proposal.state}


# No retry: the sweep runs again on its schedule.
@shared_task(name="actuation.apply_sweep", acks_late=True, ignore_result=True,
             soft_time_limit=60, time_limit=90, max_retries=0)
def apply_sweep_task() -> dict[str, object]:
    ids = approved_unapplied()
    for proposal_id in ids:
        proposal_apply_task.apply_async(kwargs={"proposal_id": proposal_id})
    return {"queued": len(ids)}
