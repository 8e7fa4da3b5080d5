"""The `cortex` console script: `cortex up` is `manage.py up`, and so on.

Every command of Cortex's own apps may be the very first one run on a fresh CORTEX_HOME:
the database is prepared here first when it is not (memory.services.setup.cortex_ensure),
and a database that cannot be reached, a migration refused before it touched anything
(memory.services.preflight) or an embedded server that cannot start is one line on stderr,
not a traceback."""

import gc
import os
import sys

OWN_APPS = {"memory", "insight", "actuation"}
PREPARE_THEMSELVES = {"up", "demo"}  # they call cortex_prepare (and say so)


def main() -> None:
    if sys.argv[1:2] == ["hook"]:
        # Hooks must start fast: no Django settings (they would start the embedded servers).
        from insight.hooks.main import main as hook_main

        sys.exit(hook_main(sys.argv[2:]))
    if sys.argv[1:2] == ["service"]:
        # Writing a systemd unit or a launchd agent needs no database.
        from memory.service_unit import main as service_main

        sys.exit(service_main(sys.argv[2:]))
    if sys.argv[1:2] == ["decaybench"]:
        # Pure Python (memory.working_set): no database or broker to start.
        from memory.working_set.cli import main as decaybench_main

        sys.exit(decaybench_main(sys.argv[2:]))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    # No cyclic garbage collection while ~1,200 modules load: their objects live as long as the
    # process, and each full collection walks them all (~0.25 s of CPU of a command's ~1 s
    # start). Moved out of the collector's sight (gc.freeze) once loaded, then collected as usual.
    gc.disable()
    # Lazy: Django (and the embedded servers its settings start) is not on the paths above.
    from django.core.exceptions import ImproperlyConfigured
    from django.db import OperationalError

    from cortex_site.embedded import EmbeddedError
    from memory.errors import DomainError

    try:
        _prepare(sys.argv[1:])
        from django.core.management import execute_from_command_line

        gc.freeze()
        gc.enable()
        execute_from_command_line(["cortex", *sys.argv[1:]])
    except KeyboardInterrupt:
        sys.exit("cortex: interrupted")
    except (DomainError, EmbeddedError, ImproperlyConfigured) as error:
        # a refused migration, a server that cannot start, a setting that cannot be used
        sys.exit(f"cortex: {error.describe() if isinstance(error, DomainError) else error}")
    except Exception as error:
        from memory.errors import disk_full

        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        if disk_full(error):  # Django's error or psycopg's own (COPY, server-side cursors)
            sys.exit(f"cortex: the database's disk is full ({reason}): the write was rolled "
                     "back, nothing half-written; free some space on it and run this again")
        if not isinstance(error, OperationalError):
            raise
        sys.exit(f"cortex: the database cannot be reached ({reason}); check DATABASE_URL, "
                 "or unset it for the embedded server under CORTEX_HOME")


def _prepare(argv: list[str]) -> None:
    if not argv or argv[0] in PREPARE_THEMSELVES or {"-h", "--help"} & set(argv):
        return
    import django
    from django.core.management import get_commands

    django.setup()
    if get_commands().get(argv[0]) not in OWN_APPS:
        return
    # Celery runs Django's system checks when a command first queues a task: they import the
    # URLconf (the API, the MCP server), ~3 s of CPU for a `cortex remember` or an ingest's
    # follower; `cortex check` runs them.
    os.environ.setdefault("CELERY_SKIP_CHECKS", "1")
    from memory.services.setup import cortex_ensure

    if cortex_ensure():
        print("cortex: prepared the database (migrations, taxonomy, beat schedule)",
              file=sys.stderr)
