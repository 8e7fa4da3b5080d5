"""The engine of docs/working-set.md: the document's worked example and its law, exactly."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.working_set.base import AlreadyPresent, InvalidParameter, TurnWentBackwards
from memory.working_set.engine import (
    MAX_STABILITY,
    DecayEngine,
    eviction_turn,
    reinforced_stability,
    retention,
)
from memory.working_set.window import SlidingWindow


def _first_eviction(memory: DecayEngine | SlidingWindow, mem_id: str, start: int,
                    last: int) -> int | None:
    for turn in range(start, last + 1):
        if mem_id in memory.step(turn):
            return turn
    return None


def test_worked_example_window_forgets_at_36_engine_still_has_it_at_39() -> None:
    engine, window = DecayEngine(), SlidingWindow(window=15)
    for memory in (engine, window):
        memory.register("rule", "never use library X", 5, is_foundational=True)
        for turn in range(5, 36):
            if turn in (10, 20):
                assert memory.recall("rule", turn)
            memory.step(turn)
            assert memory.is_present("rule"), (memory.label, turn)
    assert window.step(36) == ["rule"]
    assert engine.step(36) == []
    for turn in (37, 38, 39):
        engine.step(turn)
        window.step(turn)
    assert engine.is_present("rule") and engine.recall("rule", 39)
    assert not window.is_present("rule") and not window.recall("rule", 39)


@pytest.mark.parametrize("registered_at", [0, 1, 7, 1000])
def test_a_never_recalled_item_goes_at_turn_13_after_registration_not_before(
        registered_at: int) -> None:
    engine = DecayEngine()
    engine.register("noise", "", registered_at)
    for turn in range(registered_at, registered_at + 13):
        assert engine.step(turn) == []
        assert engine.is_present("noise")
    assert engine.step(registered_at + 13) == ["noise"]
    assert not engine.is_present("noise") and engine.working_set_size() == 0


def test_the_window_evicts_when_more_than_15_turns_have_passed() -> None:
    window = SlidingWindow()
    window.register("item", "", 10)
    assert _first_eviction(window, "item", 10, 100) == 26


@pytest.mark.parametrize("recalls", range(0, 8))
def test_stability_after_k_recalls_is_the_product(recalls: int) -> None:
    engine = DecayEngine(baseline_stability=8.0)
    engine.register("rule", "", 0)
    for turn in range(1, recalls + 1):
        assert engine.recall("rule", turn)
    expected = 8.0 * math.prod(1 + math.log(1 + count) for count in range(2, recalls + 2))
    item = engine.get("rule")
    assert item is not None and item.recall_count == recalls + 1
    assert item.stability == pytest.approx(expected, rel=1e-12)


def test_stability_stays_finite_after_many_recalls() -> None:
    engine = DecayEngine()
    engine.register("rule", "", 0)
    for turn in range(1, 2001):
        engine.recall("rule", turn)
    item = engine.get("rule")
    assert item is not None and item.stability == MAX_STABILITY


def test_retention_is_one_when_no_turn_has_passed_then_the_exponential() -> None:
    engine = DecayEngine()
    engine.register("a", "", 4)
    assert engine.retention("a", 4) == 1.0
    assert engine.retention("a", 12) == pytest.approx(math.exp(-1.0))
    assert engine.retention("missing", 12) is None
    assert retention(0, 8.0) == 1.0 and retention(-3, 8.0) == 1.0


def test_recall_of_an_absent_item_is_false_and_changes_nothing() -> None:
    engine = DecayEngine()
    assert engine.recall("ghost", 3) is False
    assert engine.working_set_size() == 0


def test_register_twice_while_present_is_refused_after_eviction_it_starts_over() -> None:
    engine = DecayEngine()
    engine.register("a", "", 0)
    engine.recall("a", 1)
    with pytest.raises(AlreadyPresent):
        engine.register("a", "", 2)
    engine.step(200)
    engine.register("a", "", 200)
    item = engine.get("a")
    assert item is not None and item.recall_count == 1 and item.stability == 8.0


def test_turns_never_go_backwards() -> None:
    engine = DecayEngine()
    engine.step(10)
    for call in (lambda: engine.step(9), lambda: engine.register("a", "", 9),
                 lambda: engine.recall("a", 9)):
        with pytest.raises(TurnWentBackwards):
            call()
    engine.register("a", "", 10)  # the same turn again is fine


@pytest.mark.parametrize("kwargs", [
    {"eviction_threshold": 0}, {"eviction_threshold": 1}, {"eviction_threshold": -0.1},
    {"eviction_threshold": 1.5}, {"eviction_threshold": math.nan}, {"eviction_threshold": "0.2"},
    {"eviction_threshold": True}, {"baseline_stability": 0}, {"baseline_stability": -8},
    {"baseline_stability": math.inf}, {"baseline_stability": math.nan},
    {"baseline_stability": None}, {"capacity": 0}, {"capacity": 2.5},
    {"eviction_threshold": None},
])
def test_invalid_engine_parameters_raise(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidParameter):
        DecayEngine(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("kwargs", [{"window": 0}, {"window": -1}, {"window": 1.5},
                                    {"window": None}, {"capacity": -3}])
def test_invalid_window_parameters_raise(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidParameter):
        SlidingWindow(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("args", [("", "x", 1), (None, "x", 1), ("a", "x", -1),
                                  ("a", "x", 1.0), ("a", "x", True)])
def test_invalid_arguments_raise(args: tuple[object, ...]) -> None:
    with pytest.raises(InvalidParameter):
        DecayEngine().register(*args)  # type: ignore[arg-type]


@given(last_touched=st.integers(0, 10**6),
       stability=st.floats(0.01, 5_000, allow_nan=False),
       threshold=st.floats(0.01, 0.99))
def test_eviction_turn_is_the_first_turn_below_the_threshold(
        last_touched: int, stability: float, threshold: float) -> None:
    turn = eviction_turn(last_touched=last_touched, stability=stability,
                         eviction_threshold=threshold)
    assert retention(turn - last_touched, stability) < threshold
    assert turn - 1 == last_touched or retention(turn - 1 - last_touched, stability) >= threshold


@given(st.lists(st.tuples(st.integers(0, 30), st.sampled_from("abcdef")), max_size=60))
def test_step_evicts_exactly_the_items_whose_eviction_turn_has_come(
        script: list[tuple[int, str]]) -> None:
    engine, turn = DecayEngine(), 0
    for gap, mem_id in script:
        turn += gap
        due = {item.mem_id: eviction_turn(last_touched=item.last_touched,
                                          stability=item.stability, eviction_threshold=0.2)
               for item in engine.items()}
        evicted = engine.step(turn)
        assert sorted(evicted) == sorted(key for key, when in due.items() if when <= turn)
        if not engine.recall(mem_id, turn):
            engine.register(mem_id, "", turn)


def test_reinforced_stability_multiplies() -> None:
    assert reinforced_stability(8.0, 2) == pytest.approx(8.0 * (1 + math.log(3)))
