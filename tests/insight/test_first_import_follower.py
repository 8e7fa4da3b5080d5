"""The first import's follower process is forked by the importer when its command starts
(insight/management/first_import.py), and waits: it exits without running a stage when the
run had nothing new to read, and is stopped with the importer's `stop()`."""

from __future__ import annotations

import time

from insight.management.first_import import Follower
from insight.services.first_import import StageTally


def test_a_standby_follower_exits_when_cancelled_without_running_a_stage() -> None:
    follower = Follower(source=None)
    (process,) = follower.processes
    time.sleep(0.3)  # it waits (polling every POLL_SECONDS) for go or cancel
    assert process.is_alive()
    started = time.monotonic()
    follower.cancel()
    assert not process.is_alive() and process.exitcode == 0
    assert time.monotonic() - started < 2
    assert follower.tally() == StageTally()


def test_a_standby_follower_is_stopped_with_the_importer() -> None:
    follower = Follower(source=None)
    (process,) = follower.processes
    follower.stop()
    assert not process.is_alive() and process.exitcode is not None and process.exitcode < 0
