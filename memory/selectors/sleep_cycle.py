"""Reads of the sleep cycle's record."""

from __future__ import annotations

from memory.models import RunStatus, SleepCycleRun


def sleep_cycle_last(*, succeeded_only: bool = False) -> SleepCycleRun | None:
    runs = SleepCycleRun.objects.order_by("-started_at", "-id")
    if succeeded_only:
        runs = runs.filter(status=RunStatus.SUCCEEDED)
    return runs.first()
