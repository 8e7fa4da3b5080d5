"""A test run split over pytest-xdist workers (scripts/test: `-p tests.xdist_homes`): each
worker gets a `CORTEX_HOME` of its own, so its own embedded PostgreSQL and Redis, and, when
`REDIS_URL` names a shared Redis, a database of its own there.

Two workers on one server would not be independent: the analysis and the Retain Job read
up to the commit horizon, which another worker's open transactions can hold back, and a
Celery worker started by one test would take the tasks another test queued. This runs when
the plugin is imported, once per worker, before pytest-django reads the settings; the
processes a test starts inherit the worker's environment. It cannot call
`cortex_site.embedded.cortex_home()`: importing that module fixes its lock directory."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REDIS_DATABASES = 16  # Redis's default `databases`


def _redis_database(url: str, index: int) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss"):
        return url
    base = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(base + index) % REDIS_DATABASES}"))


def worker_environment() -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker:
        return
    home = Path(os.environ.get("CORTEX_HOME", "~/.cortex")).expanduser()
    os.environ["CORTEX_HOME"] = str(home / "test-workers" / worker)
    # The controller's embedded lock directory (under its own home, set by
    # cortex_site/embedded.py): without it, embedded.py makes the worker's own.
    if os.environ.get("XDG_RUNTIME_DIR") == str(home.resolve() / "run"):
        del os.environ["XDG_RUNTIME_DIR"]
    if url := os.environ.get("REDIS_URL"):
        os.environ["REDIS_URL"] = _redis_database(url, int(worker.removeprefix("gw")))


worker_environment()
