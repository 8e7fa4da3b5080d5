"""The web server's command line (no Django import: the benchmarks start it from outside)."""

from __future__ import annotations

import os

# `workers` processes of `threads` threads each (gunicorn's gthread worker when threads > 1).
# A recall spends most of its time waiting for PostgreSQL on the same machine; threads keep
# the cores busy meanwhile. bench/recall_latency.py, 8 clients, no vector, 2 cores shared
# (load 7-8): 2 x 1 sync 7.8 recalls/s, 4 x 1 11.6, 2 x 4 13.8.
WEB_WORKERS = 2
WEB_THREADS = 4


def web_command(*, bin_dir: str, bind: str, workers: int = WEB_WORKERS,
                threads: int = WEB_THREADS) -> list[str]:
    """The gunicorn command line `cortex up` serves the API with (the benchmarks too)."""
    return [os.path.join(bin_dir, "gunicorn"), "cortex_site.wsgi:application", "--bind", bind,
            "--workers", str(workers), "--threads", str(threads)]
