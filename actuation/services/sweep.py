"""PostgreSQL is the truth: an approved proposal whose apply task was lost is found here
(approved longer ago than `actuation.apply_sweep_after_seconds`, so that the task queued on
approval has had its chance)."""

from __future__ import annotations

from datetime import datetime, timedelta

from actuation.models import Proposal, ProposalState
from memory import clock
from memory.config import config_get


def approved_unapplied(*, now: datetime | None = None) -> list[int]:
    wait = timedelta(seconds=config_get().actuation.apply_sweep_after_seconds)
    before = (now or clock.now()) - wait
    return list(Proposal.objects.filter(state=ProposalState.APPROVED, decided_at__lte=before)
                .order_by("decided_at").values_list("id", flat=True))
