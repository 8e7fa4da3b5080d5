"""The first import's raw read yields the cores to the stages that follow it
(insight.management.first_import.raw_read): in a thread of its own, `analysis.raw_read_nice`
nicer, the caller's thread left as it was."""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass

import pytest

from insight.management.first_import import raw_read
from memory.config import config_get

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="a thread's own nice: Linux")


@dataclass
class _Stages:
    enabled: bool = True


def _priority() -> int:
    """The calling thread's nice value (Linux: each thread has its own)."""
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def _seen() -> tuple[str, int]:
    return threading.current_thread().name, _priority()


def test_the_read_runs_nicer_in_a_thread_of_its_own() -> None:
    before = _priority()
    if before >= 19:
        pytest.skip("the tests already run at the nicest priority: nothing nicer to go to")
    wanted = min(19, before + config_get().analysis.raw_read_nice)
    name, priority = raw_read(_seen, stages=_Stages())  # type: ignore[arg-type]
    assert (name, priority) == ("cortex-raw-read", wanted)
    assert wanted > before
    assert _priority() == before  # the caller's thread keeps its priority


def test_without_stages_the_read_runs_in_the_callers_thread() -> None:
    caller = (threading.current_thread().name, _priority())
    assert raw_read(_seen, stages=None) == caller
    assert raw_read(_seen, stages=_Stages(enabled=False)) == caller  # type: ignore[arg-type]


def test_what_the_read_raises_is_raised_in_the_callers_thread() -> None:
    def failing() -> None:
        raise LookupError("a reader stopped")

    with pytest.raises(LookupError, match="a reader stopped"):
        raw_read(failing, stages=_Stages())  # type: ignore[arg-type]
