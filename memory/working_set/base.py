"""What every turn-based memory policy shares: the five methods, turn checks, a budget.

Items are indexed in groups (by default one group per recall count), each group in
the order its items were last touched. Every policy here ranks and expires items so
that, inside one group, the least recently touched item is always the weakest: the
weakest item of the whole memory is then the weakest of the group fronts, and
expiry only has to look at the fronts. That keeps a turn O(evicted + groups).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Hashable, Iterator

from memory.errors import Invalid

Rank = tuple[float, ...]


class InvalidParameter(Invalid, ValueError):
    """A policy parameter or a method argument is out of its domain."""


class TurnWentBackwards(InvalidParameter):
    """A call carried a turn earlier than one the memory has already seen."""


class AlreadyPresent(InvalidParameter):
    """`register` was called for an item that is still in the working set."""


class Item:
    __slots__ = ("content", "is_foundational", "last_touched", "mem_id", "recall_count",
                 "registered_at", "stability")

    def __init__(self, mem_id: str, content: str, turn: int, is_foundational: bool,
                 stability: float) -> None:
        self.mem_id = mem_id
        self.content = content
        self.is_foundational = is_foundational
        self.stability = stability
        self.recall_count = 1
        self.last_touched = turn
        self.registered_at = turn


def check_turn(value: object, name: str = "current_turn") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidParameter(f"{name} must be an integer >= 0, got {value!r}")
    return value


def check_positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidParameter(f"{name} must be an integer >= 1, got {value!r}")
    return value


class TurnMemory(ABC):
    """register / recall / step / is_present / working_set_size, counted in turns.

    `capacity` (optional) is a hard budget: when a registration makes the working set
    larger than it, the policy's weakest item (lowest `_rank`) is evicted at once.
    A policy's own expiry rule (`_expired`) runs in `step`.
    """

    label = "memory"
    initial_stability = 0.0

    def __init__(self, *, capacity: int | None = None) -> None:
        self.capacity = None if capacity is None else check_positive_int(capacity, "capacity")
        self.turn = 0
        self._items: dict[str, Item] = {}
        self._groups: dict[Hashable, OrderedDict[str, Item]] = {}
        self._budget_evicted: list[str] = []

    # -- the five methods ------------------------------------------------------------

    def register(self, mem_id: str, content: str, current_turn: int,
                 is_foundational: bool = False) -> None:
        if type(current_turn) is not int or current_turn != self.turn:
            self._advance(current_turn)
        if not isinstance(mem_id, str) or not mem_id:
            raise InvalidParameter(f"mem_id must be a non-empty string, got {mem_id!r}")
        if mem_id in self._items:
            raise AlreadyPresent(f"{mem_id!r} is already in the working set: recall it")
        item = Item(mem_id, content, current_turn, bool(is_foundational), self.initial_stability)
        self._items[mem_id] = item
        key = self._group_key(item)  # _file, inlined: this is the benchmark's hottest line
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = OrderedDict()
        group[mem_id] = item
        if self.capacity is not None and len(self._items) > self.capacity:
            self._evict_weakest(current_turn)

    def recall(self, mem_id: str, current_turn: int) -> bool:
        if type(current_turn) is not int or current_turn != self.turn:
            self._advance(current_turn)
        item = self._items.get(mem_id)
        if item is None:
            return False
        self._unfile(item)
        item.recall_count += 1
        self._reinforce(item)
        item.last_touched = current_turn
        self._file(item)
        return True

    def step(self, current_turn: int) -> list[str]:
        """Advance to `current_turn`; return the ids evicted since the previous step."""
        self._advance(current_turn)
        evicted, self._budget_evicted = self._budget_evicted, []
        expired, items = self._expired, self._items
        for key, group in list(self._groups.items()):
            gone = 0
            for item in group.values():  # oldest first: stop at the first one still held
                if not expired(item, current_turn):
                    break
                gone += 1
            for _ in range(gone):
                mem_id, _ = group.popitem(last=False)
                del items[mem_id]
                evicted.append(mem_id)
            if not group:
                del self._groups[key]
        return evicted

    def is_present(self, mem_id: str) -> bool:
        return mem_id in self._items

    def working_set_size(self) -> int:
        return len(self._items)

    # -- what a policy defines -------------------------------------------------------

    def _reinforce(self, item: Item) -> None:  # noqa: B027 (optional hook)
        """Called on recall, after `recall_count` was incremented."""

    def _group_key(self, item: Item) -> Hashable:
        return item.recall_count

    def _expired(self, item: Item, current_turn: int) -> bool:
        return False

    @abstractmethod
    def _rank(self, item: Item, current_turn: int) -> Rank:
        """Lower is weaker: the first to go when the budget is exceeded."""

    # -- bookkeeping -----------------------------------------------------------------

    def items(self) -> Iterator[Item]:
        return iter(self._items.values())

    def get(self, mem_id: str) -> Item | None:
        return self._items.get(mem_id)

    def _advance(self, current_turn: int) -> None:
        check_turn(current_turn)
        if current_turn < self.turn:
            raise TurnWentBackwards(
                f"turn {current_turn} is before turn {self.turn}, already reached"
            )
        self.turn = current_turn

    def _file(self, item: Item) -> None:
        key = self._group_key(item)
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = OrderedDict()
        group[item.mem_id] = item

    def _unfile(self, item: Item) -> None:
        key = self._group_key(item)
        group = self._groups[key]
        del group[item.mem_id]
        if not group:
            del self._groups[key]

    def _remove(self, item: Item) -> None:
        self._unfile(item)
        del self._items[item.mem_id]

    def _evict_weakest(self, current_turn: int) -> None:
        rank = self._rank
        weakest: Item | None = None
        lowest: Rank = ()
        for group in self._groups.values():
            front = next(iter(group.values()))
            key = (*rank(front, current_turn), front.last_touched, front.registered_at)
            if weakest is None or key < lowest:
                weakest, lowest = front, key
        if weakest is None or lowest[0] == float("inf"):
            return  # nothing, or only pinned items left: a pin outranks the budget
        self._remove(weakest)
        self._budget_evicted.append(weakest.mem_id)
