"""The quick depth-and-integers check of observation fields agrees with the full walk."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memory.services.observations import MAX_DEPTH, _plain_json


def _walk(value: Any) -> bool:
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return False
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list | tuple):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, int) and not -(2**63) <= item < 2**64:
            return False
    return True


def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


LEAVES = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**66), max_value=2**66),
                   st.floats(), st.text(max_size=3), st.sampled_from(["{", "[[", "}"]))
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner),
                            st.dictionaries(st.one_of(st.text(max_size=2), st.integers()), inner,
                                            max_size=3)),
    max_leaves=12,
)


@given(VALUES, st.integers(min_value=0, max_value=MAX_DEPTH + 3))
@settings(max_examples=1500, deadline=None)
def test_the_quick_check_agrees_with_the_walk(value: Any, depth: int) -> None:
    wrapped = _nested(depth, value)
    assert _plain_json(wrapped) == _walk(wrapped)
