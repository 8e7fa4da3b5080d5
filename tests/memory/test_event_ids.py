"""Event ids are ULIDs, unique and ascending in minting order, many at a time."""

from __future__ import annotations

import time

import pytest
from ulid import ULID

from memory.event_ids import new_event_ids


@pytest.mark.parametrize("count", [1, 2, 1023, 1024, 1025, 5000])
def test_a_batch_is_consecutive_ulids(count: int) -> None:
    ids = new_event_ids(count)
    first = int(ULID.from_str(ids[0]))
    assert ids == [str(ULID.from_int(first + offset)) for offset in range(count)]


def test_ids_ascend_across_calls_even_when_the_clock_steps_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = new_event_ids(3)
    real = time.time_ns()
    monkeypatch.setattr(time, "time_ns", lambda: real - 10**12)  # the clock event_ids reads
    after = new_event_ids(3) + new_event_ids(1)
    assert before + after == sorted(before + after)
    assert len(set(before + after)) == 7


def test_the_time_part_is_now() -> None:
    minted = ULID.from_str(new_event_ids(1)[0]).timestamp
    assert abs(minted - time.time()) < 60


def test_no_ids_for_nothing() -> None:
    assert new_event_ids(0) == []
