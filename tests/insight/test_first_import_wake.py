"""A first import's stage waits for its upstream on the upstream's done event: the retain
stage goes on the moment the analysis ends, not at its next poll (insight/services/
first_import.py, `raw_wait`)."""

from __future__ import annotations

import threading

import pytest

from insight.services.first_import import StageTally, first_import_follow

POLL = 60.0  # a poll the test would wait for in full, were the stage not woken


@pytest.mark.django_db
def test_a_waiting_stage_goes_on_when_its_upstream_ends() -> None:
    upstream_done = threading.Event()
    woken: list[bool] = []  # each wait's answer: True when the event ended it, not the poll

    def raw_wait(seconds: float) -> bool:
        woken.append(upstream_done.wait(seconds))
        return woken[-1]

    threading.Timer(0.2, upstream_done.set).start()
    tally = first_import_follow(
        raw_done=upstream_done.is_set, alive=lambda: True, report=lambda _: None,
        poll_seconds=POLL, lock_timeout=1.0, analyze=False, retain=True,
        backlog=lambda _: 0, raw_wait=raw_wait)
    assert woken == [True]  # it waited once, ended by the event, then ran its last rounds
    assert tally == StageTally()


@pytest.mark.django_db
def test_a_stage_whose_upstream_ended_does_not_wait_on_the_event() -> None:
    waits: list[float] = []
    tally = first_import_follow(
        raw_done=lambda: True, alive=lambda: True, report=lambda _: None,
        poll_seconds=POLL, lock_timeout=1.0, analyze=False, retain=True,
        backlog=lambda _: 0, raw_wait=waits.append)
    assert waits == []
    assert tally == StageTally()
