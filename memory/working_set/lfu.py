"""LFU: under its budget, the least often used item goes first (then the oldest)."""

from __future__ import annotations

from memory.working_set.base import Item, Rank, TurnMemory, check_positive_int


class LeastFrequentlyUsed(TurnMemory):
    label = "lfu"

    def __init__(self, *, capacity: int) -> None:
        super().__init__(capacity=check_positive_int(capacity, "capacity"))

    def _rank(self, item: Item, current_turn: int) -> Rank:
        return (float(item.recall_count), float(item.last_touched))
