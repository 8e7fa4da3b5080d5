"""The baselines behind the same interface, and the budget every policy can be held to."""

from __future__ import annotations

import pytest

from memory.working_set.base import InvalidParameter
from memory.working_set.engine import DecayEngine
from memory.working_set.lfu import LeastFrequentlyUsed
from memory.working_set.pinned import PinnedLRU
from memory.working_set.strength import StrengthModel
from memory.working_set.window import LeastRecentlyUsed


def _fill(memory: object, ids: str, turn: int = 1) -> None:
    for offset, mem_id in enumerate(ids):
        memory.register(mem_id, "", turn + offset)  # type: ignore[attr-defined]


def test_lru_drops_the_least_recently_touched_at_the_budget() -> None:
    lru = LeastRecentlyUsed(capacity=3)
    _fill(lru, "abc")
    lru.recall("a", 4)
    lru.register("d", "", 5)
    assert [lru.is_present(x) for x in "abcd"] == [True, False, True, True]
    assert lru.step(5) == ["b"] and lru.working_set_size() == 3


def test_lfu_drops_the_least_recalled_then_the_oldest() -> None:
    lfu = LeastFrequentlyUsed(capacity=3)
    _fill(lfu, "abc")
    lfu.recall("a", 4)
    lfu.recall("b", 5)
    lfu.register("d", "", 6)
    assert not lfu.is_present("c")
    lfu.register("e", "", 7)
    assert not lfu.is_present("d") and lfu.is_present("a") and lfu.is_present("b")


def test_pinned_items_outlast_the_budget_the_rest_is_lru() -> None:
    pin = PinnedLRU(capacity=2)
    pin.register("rule", "", 1, is_foundational=True)
    _fill(pin, "abcdef", turn=2)
    assert pin.is_present("rule") and pin.is_present("f") and pin.working_set_size() == 2
    pin.register("rule2", "", 20, is_foundational=True)
    pin.register("rule3", "", 21, is_foundational=True)
    assert pin.working_set_size() == 3  # only pins left: a pin outranks the budget


def test_engine_under_a_budget_drops_the_lowest_retention() -> None:
    engine = DecayEngine(eviction_threshold=None, capacity=2)
    engine.register("rule", "", 1)
    engine.recall("rule", 2)
    engine.recall("rule", 3)
    engine.register("a", "", 5)
    engine.register("b", "", 6)  # rule: exp(-3/40.1) = 0.93 > a: exp(-1/8) = 0.88
    assert engine.is_present("rule") and not engine.is_present("a")
    assert engine.step(1000) == ["a"]  # no threshold: only the budget evicts
    assert engine.working_set_size() == 2


def test_strength_model_in_turns_gives_a_new_item_the_engine_lifetime() -> None:
    model = StrengthModel()
    model.register("noise", "", 0)
    assert all(model.step(turn) == [] for turn in range(13))
    assert model.step(13) == ["noise"]


def test_strength_model_recall_restarts_the_clock_with_a_small_boost() -> None:
    model = StrengthModel()
    model.register("rule", "", 0)
    for turn in (3, 6, 9):
        model.recall("rule", turn)
    assert model.strength("rule", 9) == pytest.approx(1 + 0.1 * 2.0)  # log2(3 + 1)
    evicted_at = next(turn for turn in range(10, 100) if model.step(turn))
    assert evicted_at == 9 + 16  # 1.2 x 0.5^(dt/8.5) < 0.35 first at dt = 16


@pytest.mark.parametrize("make", [
    lambda: LeastRecentlyUsed(capacity=0), lambda: LeastFrequentlyUsed(capacity=-1),
    lambda: PinnedLRU(capacity=None),  # type: ignore[arg-type]
    lambda: StrengthModel(threshold=1.2),
    lambda: StrengthModel(half_life=0), lambda: StrengthModel(threshold=None),
])
def test_invalid_policy_parameters_raise(make: object) -> None:
    with pytest.raises(InvalidParameter):
        make()  # type: ignore[operator]
