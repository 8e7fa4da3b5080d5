"""The sleep cycle that ends a first import (issue 27: the import gives a consolidated graph,
its vectors computed and a sleep cycle finished). Run by the retain stage once nothing is
left pending, in the process that already has Django and a connection: a `cortex sleep`
after the import paid an interpreter's and Django's start (0.7-1 s of CPU and of wall, on
one core, after everything else) for ~0.6 s of work on the 300 MB corpus's graph.

Only on a graph no sleep cycle has consolidated yet: later imports leave it to the nightly
run (`cortex up`'s beat) or to `cortex sleep`. A first import interrupted before its sleep
cycle finished (even during it: its row is left `running`, the next run marks it failed)
runs it at the next `cortex ingest`, which asks `first_sleep_wanted` beside
`first_import_waiting`."""

from __future__ import annotations

import logging

from memory.models import Entity, RunStatus, SleepCycleRun
from memory.services.locks import SleepCycleBusy

logger = logging.getLogger(__name__)

TRIGGER = "first_import"


def first_sleep_wanted() -> bool:
    """A graph (some entity) that no sleep cycle has consolidated yet. Two indexed reads."""
    return (not SleepCycleRun.objects.filter(status=RunStatus.SUCCEEDED).exists()
            and Entity.objects.exists())


def first_sleep() -> SleepCycleRun | None:
    """The first sleep cycle, when wanted; None when not wanted or when another process (a
    worker under `cortex up`) is running one. A failed step is the run's own (`failed`, its
    error recorded, as `cortex sleep` records it): the next `cortex ingest` tries again."""
    if not first_sleep_wanted():
        return None
    # Lazy: the steps' modules (compiled truths, detectors) are not an unchanged re-run's.
    from memory.services.sleep_cycle import sleep_cycle_run

    try:
        run = sleep_cycle_run(trigger=TRIGGER)
    except SleepCycleBusy:
        return None
    if run.status != RunStatus.SUCCEEDED:
        logger.warning("the first import's sleep cycle failed: %s", run.error)
    return run
