"""Steps of the sleep cycle, run in `order` by `services.sleep_cycle.sleep_cycle_run`.

A step is a function of a `StepContext` returning counts (`{"name": int}`). It runs
in its own transaction; one that raises is recorded as failed and the run goes
on with the next step (the run then ends as failed). Other apps register their
steps from their `AppConfig.ready()`, so `memory` never imports them:

    @sleep_step("actuation.detectors", order=40)
    def detect(ctx: StepContext) -> dict[str, int]: ...
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from datetime import datetime

from memory.config import DecayConfig
from memory.models import SleepCycleRun


@dataclasses.dataclass(frozen=True)
class StepContext:
    run: SleepCycleRun
    now: datetime
    config: DecayConfig


StepFunc = Callable[[StepContext], Mapping[str, int]]


@dataclasses.dataclass(frozen=True)
class Step:
    name: str
    order: int
    func: StepFunc


_steps: dict[str, Step] = {}


def sleep_step(name: str, *, order: int) -> Callable[[StepFunc], StepFunc]:
    """Register `func` as the step `name` (registering a name again replaces it)."""

    def register(func: StepFunc) -> StepFunc:
        _steps[name] = Step(name=name, order=order, func=func)
        return func

    return register


def sleep_step_remove(name: str) -> None:
    _steps.pop(name, None)


def sleep_steps() -> list[Step]:
    return sorted(_steps.values(), key=lambda step: (step.order, step.name))
