"""The entry point of a transcript reader process (insight/producers/claude_code_readers.py).
Spawned: a fresh interpreter unpickles this module before Django is set up, so it imports
nothing of Django or of the apps until `django.setup()` ran."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

WAIT_SECONDS = 0.5


def reader_main(database_url: str, redis_url: str, parent: int, jobs: list[tuple[str, str]],
                states: dict[str, Any], out: Any) -> None:
    """Read `jobs` (root, path), their batches prepared and put on `out`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the importer stops its readers
    # Wherever this process waits on the importer (a full queue, the flush of what it put
    # before it may exit), it goes once the importer is gone: nothing could read it.
    threading.Thread(target=_exit_without, args=(parent,), daemon=True).start()
    os.environ["DATABASE_URL"], os.environ["REDIS_URL"] = database_url, redis_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    import django

    django.setup()
    from insight.producers.claude_code_files import share_read

    try:
        share_read(jobs=jobs, states=states, put=out.put)
    except BaseException as error:  # told to the importer, which stops (the name only: a
        out.put(("error", type(error).__name__))  # message might quote what was read)
        raise


def _exit_without(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WAIT_SECONDS)
    os._exit(0)
