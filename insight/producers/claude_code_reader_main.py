"""The entry point of a transcript reader process (insight/producers/claude_code_readers.py).
Spawned: a fresh interpreter unpickles this module before Django is set up, so it imports
nothing of Django or of the apps until `django.setup()` ran."""

from __future__ import annotations

import os
import queue
import signal
from typing import Any

WAIT_SECONDS = 0.5


def reader_main(database_url: str, redis_url: str, parent: int, jobs: list[tuple[str, str]],
                states: dict[str, Any], out: Any) -> None:
    """Read `jobs` (root, path), their batches prepared and put on `out`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the importer stops its readers
    os.environ["DATABASE_URL"], os.environ["REDIS_URL"] = database_url, redis_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    import django

    django.setup()
    from insight.producers.claude_code_files import share_read

    def put(message: tuple[Any, ...]) -> None:
        while True:
            try:
                out.put(message, timeout=WAIT_SECONDS)
                return
            except queue.Full:
                if os.getppid() != parent:  # the importer is gone: nothing to hand to
                    os._exit(0)

    try:
        share_read(jobs=jobs, states=states, put=put)
    except BaseException as error:  # told to the importer, which stops (the name only: a
        put(("error", type(error).__name__))  # message might quote what was read)
        raise
