"""Stopping the embedded Redis waits for the server to exit, not for its reaping: a daemon's
parent is the init process, which may reap it seconds later (this sandbox's init: 1.4-1.9 s,
paid at the end of every command that stopped Redis)."""

from __future__ import annotations

import subprocess
import time

import psutil

from cortex_site.embedded import exited_wait


def test_a_process_that_exited_unreaped_has_exited() -> None:
    # Our own child, never waited for: once it exits it stays a zombie, as a daemon does
    # until its init reaps it.
    child = subprocess.Popen(["sleep", "30"])
    try:
        proc = psutil.Process(child.pid)
        proc.terminate()
        assert exited_wait(proc, timeout=5)
        assert proc.status() == psutil.STATUS_ZOMBIE  # not reaped: exited all the same
    finally:
        child.kill()
        child.wait()


def test_a_process_that_outlives_the_timeout_has_not_exited() -> None:
    stubborn = subprocess.Popen(["sh", "-c", "trap '' TERM; sleep 30"])
    try:
        time.sleep(0.2)  # its trap set
        proc = psutil.Process(stubborn.pid)
        proc.terminate()
        assert not exited_wait(proc, timeout=0.3)
        assert proc.status() != psutil.STATUS_ZOMBIE  # still running: the caller kills it
    finally:
        stubborn.kill()
        stubborn.wait()


def test_a_process_already_gone_has_exited() -> None:
    done = subprocess.Popen(["true"])
    proc = psutil.Process(done.pid)
    done.wait()  # reaped: no such process any more
    assert exited_wait(proc, timeout=0.1)
