"""The sliding-window baseline of seed document 004 (docs/working-set.md), and LRU: recency
is all they know."""

from __future__ import annotations

from collections.abc import Hashable

from memory.working_set.base import InvalidParameter, Item, Rank, TurnMemory, check_positive_int

DEFAULT_WINDOW = 15


class SlidingWindow(TurnMemory):
    """Evicts an item when `current_turn - last_touched > window`; under a budget the
    least recently touched goes first. With `window=None` only the budget evicts: LRU."""

    label = "window"

    def __init__(self, *, window: int | None = DEFAULT_WINDOW,
                 capacity: int | None = None) -> None:
        super().__init__(capacity=capacity)
        if window is None and capacity is None:
            raise InvalidParameter("a window without a size needs a capacity")
        self.window = None if window is None else check_positive_int(window, "window")

    def _group_key(self, item: Item) -> Hashable:
        return 0  # one group, in touch order: the front is always the oldest

    def _expired(self, item: Item, current_turn: int) -> bool:
        return self.window is not None and current_turn - item.last_touched > self.window

    def _rank(self, item: Item, current_turn: int) -> Rank:
        return (float(item.last_touched),)


class LeastRecentlyUsed(SlidingWindow):
    label = "lru"

    def __init__(self, *, capacity: int) -> None:
        super().__init__(window=None, capacity=check_positive_int(capacity, "capacity"))
