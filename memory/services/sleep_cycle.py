"""The sleep cycle (docs/sleep-cycle.md): one run of every registered step.

Two runs never overlap: a run holds a PostgreSQL advisory lock on its
connection for its whole duration. A process that dies loses its connection,
hence the lock; its row, still `running`, is marked failed by the next run.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from datetime import datetime
from typing import Any

from django.db import transaction

from memory import clock
from memory.config import DecayConfig, config_get
from memory.models import RunStatus, SleepCycleRun
from memory.queueing import task_enqueue
from memory.services import compiled_truth as _compiled_step  # noqa: F401 - registers its step
from memory.services.locks import sleep_cycle_lock
from memory.sleep import steps as _core_steps  # noqa: F401 - registers the core steps
from memory.sleep.registry import Step, StepContext, sleep_steps

logger = logging.getLogger(__name__)

ABANDONED = "abandoned: the process running it stopped before it finished"


def sleep_cycle_run(
    *, now: datetime | None = None, trigger: str = "command", config: DecayConfig | None = None
) -> SleepCycleRun:
    """Run the sleep cycle as of `now` (default: the clock). Raises SleepCycleBusy."""
    config = config or config_get()
    as_of = now or clock.now()
    with sleep_cycle_lock():
        SleepCycleRun.objects.filter(status=RunStatus.RUNNING).update(
            status=RunStatus.FAILED, error=ABANDONED
        )
        run = SleepCycleRun.objects.create(
            as_of=as_of, trigger=trigger, started_at=clock.now(), config_digest=config.digest,
            worker=f"{socket.gethostname()}:{os.getpid()}",
        )
        started = time.monotonic()
        try:
            for step in sleep_steps():
                _run_step(step, StepContext(run=run, now=as_of, config=config))
        except BaseException as exc:
            _finish(run, started, error=f"interrupted: {type(exc).__name__}")
            raise
        failed = [s["name"] for s in run.steps if s["status"] == RunStatus.FAILED]
        _finish(run, started, error=f"failed steps: {', '.join(failed)}" if failed else "")
    return run


def sleep_cycle_enqueue(*, trigger: str) -> None:
    """Queue a run of the sleep cycle once the current transaction commits."""
    task_enqueue("memory.sleep_cycle_run", trigger=trigger)


def _run_step(step: Step, ctx: StepContext) -> None:
    entry: dict[str, Any] = {"name": step.name, "started_at": clock.now().isoformat()}
    began = time.monotonic()
    try:
        with transaction.atomic():
            counts = dict(step.func(ctx))
        entry |= {"status": RunStatus.SUCCEEDED, "counts": counts, "error": ""}
    except Exception as exc:
        logger.exception("sleep cycle step %s failed", step.name)
        counts = {}
        entry |= {"status": RunStatus.FAILED, "counts": {}, "error": f"{type(exc).__name__}: {exc}"}
    entry["duration_ms"] = round((time.monotonic() - began) * 1000)
    ctx.run.steps = [*ctx.run.steps, entry]
    ctx.run.counts = {**ctx.run.counts, **counts}
    ctx.run.save(update_fields=["steps", "counts"])


def _finish(run: SleepCycleRun, started: float, *, error: str) -> None:
    run.status = RunStatus.FAILED if error else RunStatus.SUCCEEDED
    run.error = error
    run.finished_at = clock.now()
    run.duration_ms = round((time.monotonic() - started) * 1000)
    run.save(update_fields=["status", "error", "finished_at", "duration_ms"])
