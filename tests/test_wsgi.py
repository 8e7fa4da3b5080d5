"""A web worker's start: what it loaded is out of the cyclic collector's sight."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest
from django.conf import settings

from memory.services.sql import connection_url

SCRIPT = """
import gc
import cortex_site.wsgi
print(gc.get_freeze_count(), len(gc.get_objects()))
"""


@pytest.mark.django_db
def test_a_worker_freezes_what_it_loaded() -> None:
    env = {**os.environ, "DATABASE_URL": connection_url(), "REDIS_URL": settings.REDIS_URL}
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    frozen, tracked = (int(count) for count in done.stdout.split())
    # Django and the apps, tens of thousands of objects, are frozen; the collector is left
    # with what the worker makes from here on
    assert frozen > 10_000 and tracked < frozen // 100


def test_a_worker_starts_without_its_database() -> None:
    """The warm-up (memory.services.recall.recall_warm) reads the database when it answers;
    a worker started before it (not up, not migrated) starts all the same."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    env = {**os.environ, "DATABASE_URL": f"postgresql://cortex@127.0.0.1:{closed}/cortex",
           "REDIS_URL": settings.REDIS_URL}
    done = subprocess.run([sys.executable, "-c", "import cortex_site.wsgi"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
