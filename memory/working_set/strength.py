"""Cortex's own entity strength model (docs/decay.md, `memory.decay.formulas`), run in
turns instead of days.

    strength = base x 0.5 ^ (elapsed / half_life) x (1 + 0.1 x log2(retrievals + 1))

with no feedback (reward_factor 1), the normal route (1.0) and a neutral emotional
multiplier (1.0): the model is given no more than the engine knows. An item counts
as present while its strength is at least `threshold` (0.35, the injection cut-off);
under a budget the weakest goes first.
The default half-life gives a never-recalled item the engine's lifetime (13 turns),
so the two differ only in how a recall counts: a restarted clock and a logarithmic
boost here, a multiplied stability there.
"""

from __future__ import annotations

import math

from memory.decay.formulas import decay_extended, retrieval_boost
from memory.working_set.base import InvalidParameter, Item, Rank, TurnMemory
from memory.working_set.engine import (
    DEFAULT_BASELINE_STABILITY,
    DEFAULT_EVICTION_THRESHOLD,
    check_threshold,
)

DEFAULT_STRENGTH_THRESHOLD = 0.35
RETRIEVAL_WEIGHT = 0.1  # docs/decay.md's default; not read from config/decay.yaml, so that the
# benchmark's output depends on its arguments only
DEFAULT_HALF_LIFE = (DEFAULT_BASELINE_STABILITY * math.log(1 / DEFAULT_EVICTION_THRESHOLD)
                     / math.log2(1 / DEFAULT_STRENGTH_THRESHOLD))


def strength(elapsed: int, retrievals: int, half_life: float, base: float = 1.0) -> float:
    """memory.decay.formulas' extended model, with turns for days."""
    return (base * decay_extended(dt_days=max(elapsed, 0), effective_half_life_days=half_life)
            * retrieval_boost(retrieval_count=retrievals, retrieval_weight=RETRIEVAL_WEIGHT))


class StrengthModel(TurnMemory):
    label = "strength"

    def __init__(self, *, threshold: float | None = DEFAULT_STRENGTH_THRESHOLD,
                 half_life: float = DEFAULT_HALF_LIFE, capacity: int | None = None) -> None:
        super().__init__(capacity=capacity)
        if threshold is None and capacity is None:
            raise InvalidParameter("a strength model without a threshold needs a capacity")
        self.threshold = None if threshold is None else check_threshold(threshold, "threshold")
        if isinstance(half_life, bool) or not isinstance(half_life, int | float) or half_life <= 0:
            raise InvalidParameter(f"half_life must be a number > 0, got {half_life!r}")
        self.half_life = float(half_life)

    def strength(self, mem_id: str, current_turn: int) -> float | None:
        item = self.get(mem_id)
        return None if item is None else self._strength(item, current_turn)

    def _strength(self, item: Item, current_turn: int) -> float:
        return strength(current_turn - item.last_touched, item.recall_count - 1, self.half_life)

    def _expired(self, item: Item, current_turn: int) -> bool:
        return self.threshold is not None and self._strength(item, current_turn) < self.threshold

    def _rank(self, item: Item, current_turn: int) -> Rank:
        return (self._strength(item, current_turn),)
