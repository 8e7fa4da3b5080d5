"""The depth-and-integers check of observation fields (`_plain_json`), against expectations
known from how each value is built: every generated value carries its nesting depth and
whether it holds an integer outside 64 bits, counted while it is constructed."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.limits import OBSERVATION_DEPTH
from memory.services.observations import _plain_json

LOWEST, HIGHEST = -(2**63), 2**64 - 1  # what "an integer of at most 64 bits" admits

# (value, depth, has an integer beyond 64 bits). Depth: a leaf or an empty container is 0,
# a container holding something is one more than its deepest item.
Built = tuple[Any, int, bool]


def _leaf(value: Any) -> Built:
    big = isinstance(value, int) and not isinstance(value, bool) and not (
        LOWEST <= value <= HIGHEST)
    return value, 0, big


def _container(kind: str, items: list[Built], keys: list[Any]) -> Built:
    values = [value for value, _, _ in items]
    built: Any
    if kind == "list":
        built = values
    elif kind == "tuple":
        built = tuple(values)
    else:  # as many distinct keys as items at most
        built = dict(zip(keys, values, strict=False))
    if not built:
        return built, 0, False
    return built, 1 + max(d for _, d, _ in items), any(b for _, _, b in items)


LEAVES = st.one_of(
    st.none(), st.booleans(), st.floats(allow_nan=False), st.text(max_size=3),
    st.sampled_from(["{", "[[", "}", "]]]]"]),
    st.integers(min_value=LOWEST - 4, max_value=HIGHEST + 4),
    st.sampled_from([LOWEST, LOWEST - 1, HIGHEST, HIGHEST + 1, 2**63, -(2**70), 2**70]),
).map(_leaf)


def _extend(inner: st.SearchStrategy[Built]) -> st.SearchStrategy[Built]:
    items = st.lists(inner, max_size=3)
    keys = st.lists(st.text(max_size=2), unique=True, min_size=3, max_size=3)
    return st.builds(_container, st.sampled_from(["list", "tuple", "dict"]), items, keys)


VALUES = st.recursive(LEAVES, _extend, max_leaves=12)


def _wrapped(built: Built, levels: int) -> Built:
    value, depth, big = built
    for level in range(levels):
        value = [value] if level % 2 else {"k": value}
    return value, depth + levels, big


@given(VALUES, st.integers(min_value=0, max_value=OBSERVATION_DEPTH + 3))
@settings(max_examples=1500, deadline=None)
def test_the_check_accepts_exactly_the_shallow_values_with_64_bit_integers(
    built: Built, levels: int
) -> None:
    value, depth, big = _wrapped(built, levels)
    assert _plain_json(value) == (depth <= OBSERVATION_DEPTH and not big)


def _deep(levels: int, leaf: Any = 1) -> Any:
    value = leaf
    for _ in range(levels):
        value = {"k": value}
    return value


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (_deep(OBSERVATION_DEPTH), True),
        (_deep(OBSERVATION_DEPTH + 1), False),
        (_deep(OBSERVATION_DEPTH - 1, leaf={}), True),  # an empty container adds no level
        (_deep(OBSERVATION_DEPTH, leaf=[]), True),
        (_deep(OBSERVATION_DEPTH, leaf=[[]]), False),
        ({"text": "[" * 500 + "{" * 500}, True),  # brackets inside strings are not levels
        ([HIGHEST, LOWEST], True),
        ([HIGHEST + 1], False),
        ({"n": LOWEST - 1}, False),
        ({1: "integer keys"}, True),
    ],
)
def test_the_boundaries(value: Any, expected: bool) -> None:
    assert _plain_json(value) is expected
