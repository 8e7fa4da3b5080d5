"""The sleep-cycle step (registered from `ActuationConfig.ready()`): after consolidation,
every detector runs and the applied proposals' outcomes are counted."""

from __future__ import annotations

from collections.abc import Mapping

from actuation.services.detection import detection_counts, detection_run
from memory.sleep.registry import StepContext

STEP = "actuation.detectors"
# After the core steps (entities 10, relations 20) and the other apps' consolidation steps.
ORDER = 90


def detectors_step(ctx: StepContext) -> Mapping[str, int]:
    return detection_counts(detection_run(now=ctx.now, config=ctx.config))
