"""The entry point of the first import's follower process (insight/management/first_import.py).
Spawned: a fresh interpreter unpickles this module before Django is set up, so it imports
nothing of Django or of the apps until `django.setup()` ran."""

from __future__ import annotations

import dataclasses
import gc
import os
import signal
from multiprocessing.sharedctypes import Synchronized, SynchronizedArray
from multiprocessing.synchronize import Event


def follow_main(database_url: str, redis_url: str, counts: SynchronizedArray[int],
                upstream_done: Event, done: Event, parent: int, stage: str,
                poll_seconds: float, lock_timeout: float,
                upstream_counts: SynchronizedArray[int] | None = None,
                stored: Synchronized[int] | None = None, source: str | None = None) -> None:
    """`stage` "analyze" follows the raw log of `source` (`stored`: the events it committed
    so far), "retain" the analysis (whose counts are `upstream_counts`); `done` is set once
    the stage has nothing left after its upstream was done."""
    # Ctrl-C reaches the whole process group: the importer stops this process (SIGTERM).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ["DATABASE_URL"], os.environ["REDIS_URL"] = database_url, redis_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    import django

    gc.disable()  # as the `cortex` script (cortex_site/cli.py): no collection while Django loads
    django.setup()
    from insight.services.first_import import StageTally, first_import_follow

    gc.freeze()
    gc.enable()

    names = [f.name for f in dataclasses.fields(StageTally)]

    def report(tally: StageTally) -> None:
        counts[:] = [getattr(tally, name) for name in names]

    created = names.index("observations_created")

    def backlog(tally: StageTally) -> int:
        if stored is not None:  # events committed that this stage has not read
            return int(stored.value) - tally.events_analyzed
        assert upstream_counts is not None  # observations made that it has not retained
        return int(upstream_counts[created]) - tally.retained

    first_import_follow(raw_done=upstream_done.is_set, alive=lambda: os.getppid() == parent,
                        report=report, poll_seconds=poll_seconds, lock_timeout=lock_timeout,
                        analyze=stage == "analyze", retain=stage == "retain", source=source,
                        backlog=backlog if upstream_counts is not None or stored is not None
                        else None)
    if os.getppid() == parent:
        done.set()
