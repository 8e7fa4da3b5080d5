"""The first import's stages process (insight/management/first_import_main.py): its forked
retain stage seen from the analysis's process."""

from __future__ import annotations

import os
import signal
import time

from insight.management.first_import_main import _Child


def _forked(then: int | None) -> _Child:
    """A child that exits with `then` at once, or (None) sleeps until it is stopped."""
    pid = os.fork()
    if pid == 0:
        if then is None:
            time.sleep(60)
        os._exit(then or 0)
    return _Child(pid)


def test_a_child_that_failed_gives_its_exit_code_once_it_ended() -> None:
    child = _forked(3)
    assert child.exitcode(wait=True) == 3
    assert child.exitcode() == 3  # reaped once, remembered


def test_a_running_child_has_no_exit_code_until_stopped() -> None:
    child = _forked(None)
    assert child.exitcode() is None
    child.stop()
    assert child.exitcode() == -signal.SIGTERM
    child.stop()  # already ended: nothing more
