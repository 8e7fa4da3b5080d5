"""Reads of the sleep cycle's record."""

from __future__ import annotations

from memory.models import ConsolidationRun, RunStatus


def consolidation_last(*, succeeded_only: bool = False) -> ConsolidationRun | None:
    runs = ConsolidationRun.objects.order_by("-started_at", "-id")
    if succeeded_only:
        runs = runs.filter(status=RunStatus.SUCCEEDED)
    return runs.first()
