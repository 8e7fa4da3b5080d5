"""Real Celery workers for the Retain Job's tests: `celery -A cortex_site worker` started as a
subprocess on the test database (committed rows: transactional tests) and on the test Redis."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from django.conf import settings

from memory.services.sql import connection_url

BASE_DIR = Path(settings.BASE_DIR)
DEADLINE = 180.0


class Worker:
    def __init__(self, name: str, log: Path, *, concurrency: int = 1) -> None:
        self.log = log
        env = {**os.environ, "DATABASE_URL": connection_url(), "REDIS_URL": settings.REDIS_URL,
               "DJANGO_SETTINGS_MODULE": "cortex_site.settings"}
        env.pop("CORTEX_EAGER_TASKS", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "cortex_site", "worker", "--loglevel=INFO",
             f"--concurrency={concurrency}", "--pool=prefork", "--without-gossip",
             "--without-mingle", "--without-heartbeat", "-n", f"{name}@%h"],
            cwd=BASE_DIR, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for(lambda: "ready." in self.output(), what=f"worker {name} to start", log=log)

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self) -> None:
        """SIGKILL the worker and its pool processes, like a machine losing power."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


def wait_for(condition: Callable[[], bool], *, what: str, log: Path | None = None,
             pause: float = 0.05) -> None:
    """Poll until `condition()` (a deadline only guards against a hang; nothing is timed)."""
    deadline = time.monotonic() + DEADLINE
    while not condition():
        if time.monotonic() > deadline:
            tail = log.read_text(errors="replace")[-3000:] if log and log.exists() else ""
            raise AssertionError(f"timed out waiting for {what}\n{tail}")
        time.sleep(pause)


def purge_queue() -> None:
    from cortex_site.celery import app

    app.control.purge()
