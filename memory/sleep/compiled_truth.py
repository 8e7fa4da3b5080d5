"""The sleep cycle's compiled-truth step (docs/compiled-truth.md): after strengths and
weights are stored, a new version for each active entity the regeneration rule selects."""

from __future__ import annotations

from memory.services.compiled_truth import compiled_truth_sleep
from memory.sleep.registry import StepContext, sleep_step

COMPILED_ORDER = 30


@sleep_step("compiled_truth", order=COMPILED_ORDER)
def compiled_truth_step(ctx: StepContext) -> dict[str, int]:
    return compiled_truth_sleep(now=ctx.now, config=ctx.config).counts()
