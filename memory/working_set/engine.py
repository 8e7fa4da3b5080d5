"""The turn-based decay engine of seed document 004 (docs/working-set.md).

    retention = exp(-elapsed / stability)          (1.0 when no turn has passed)
    on recall:  recall_count += 1; stability *= 1 + ln(1 + recall_count)
    evicted the first turn retention < eviction_threshold

Counted in turns given by the caller, never in clock time; no Django, no randomness.
"""

from __future__ import annotations

import math

from memory.working_set.base import InvalidParameter, Item, Rank, TurnMemory

DEFAULT_EVICTION_THRESHOLD = 0.20
DEFAULT_BASELINE_STABILITY = 8.0
# Past this an item cannot be evicted within any representable session; the cap keeps
# the stability finite after hundreds of recalls (the product grows without bound).
MAX_STABILITY = 1e15


def retention(elapsed: int, stability: float) -> float:
    return math.exp(-elapsed / stability) if elapsed > 0 else 1.0


def reinforced_stability(stability: float, recall_count: int) -> float:
    """The stability after the recall that brought the count to `recall_count`."""
    return min(stability * (1.0 + math.log(1 + recall_count)), MAX_STABILITY)


def eviction_turn(*, last_touched: int, stability: float, eviction_threshold: float) -> int:
    """The first turn at which an untouched item's retention is below the threshold."""
    elapsed = max(1, math.floor(stability * math.log(1.0 / eviction_threshold)))
    while elapsed > 1 and retention(elapsed - 1, stability) < eviction_threshold:
        elapsed -= 1
    while retention(elapsed, stability) >= eviction_threshold:
        elapsed += 1
    return last_touched + elapsed


def check_threshold(value: object, name: str = "eviction_threshold") -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise InvalidParameter(f"{name} must be a number strictly between 0 and 1, got {value!r}")
    return float(value)


def check_stability(value: object) -> float:
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not 0 < value <= MAX_STABILITY):
        raise InvalidParameter(
            f"baseline_stability must be a number > 0 and <= {MAX_STABILITY:g}, got {value!r}"
        )
    return float(value)


class DecayEngine(TurnMemory):
    """Keeps what is reused: every recall multiplies the item's stability.

    Under a `capacity` the item with the lowest retention goes first; with
    `eviction_threshold=None` only that budget evicts (the fair benchmark's mode).
    """

    label = "engine"

    def __init__(self, *, eviction_threshold: float | None = DEFAULT_EVICTION_THRESHOLD,
                 baseline_stability: float = DEFAULT_BASELINE_STABILITY,
                 capacity: int | None = None) -> None:
        super().__init__(capacity=capacity)
        if eviction_threshold is None and capacity is None:
            raise InvalidParameter("an engine without a threshold needs a capacity")
        self.eviction_threshold = (None if eviction_threshold is None
                                   else check_threshold(eviction_threshold))
        self.baseline_stability = self.initial_stability = check_stability(baseline_stability)

    def retention(self, mem_id: str, current_turn: int) -> float | None:
        item = self.get(mem_id)
        return None if item is None else retention(current_turn - item.last_touched,
                                                   item.stability)

    def _reinforce(self, item: Item) -> None:
        item.stability = reinforced_stability(item.stability, item.recall_count)

    def _expired(self, item: Item, current_turn: int) -> bool:
        threshold = self.eviction_threshold
        return (threshold is not None
                and retention(current_turn - item.last_touched, item.stability) < threshold)

    def _rank(self, item: Item, current_turn: int) -> Rank:
        return (-(current_turn - item.last_touched) / item.stability,)
