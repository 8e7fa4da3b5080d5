"""Pinning: foundational items are never evicted; the rest share the budget as in LRU.

It is told which items are foundational (the `is_foundational` flag of `register`),
which the other policies ignore: an upper bound for a system that can label its rules.
"""

from __future__ import annotations

from collections.abc import Hashable

from memory.working_set.base import Item, Rank, TurnMemory, check_positive_int


class PinnedLRU(TurnMemory):
    label = "pin+lru"

    def __init__(self, *, capacity: int) -> None:
        super().__init__(capacity=check_positive_int(capacity, "capacity"))

    def _group_key(self, item: Item) -> Hashable:
        return item.is_foundational

    def _rank(self, item: Item, current_turn: int) -> Rank:
        return (float("inf"),) if item.is_foundational else (float(item.last_touched),)
