"""What every command that runs Cortex needs first: the schema and the taxonomy, up to date."""

from __future__ import annotations

from django.core.management import call_command
from django.db import connection

from memory.selectors.setup import cortex_ready
from memory.services.locks import PREPARE_LOCK_KEY
from memory.services.schedule import beat_schedule_ensure
from memory.services.taxonomy import SyncReport, taxonomy_sync


def cortex_prepare() -> SyncReport:
    """Apply pending migrations, sync the namespace tree from the config and seed the beat
    schedule's missing entries (all idempotent)."""
    call_command("migrate", interactive=False, verbosity=0)
    report = taxonomy_sync()
    beat_schedule_ensure()
    return report


def cortex_ensure() -> bool:
    """Prepare the database when it is not ready (a fresh CORTEX_HOME, a release with new
    migrations); True when it did. Two commands starting at once prepare it once."""
    if cortex_ready():
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [PREPARE_LOCK_KEY])
    try:
        if cortex_ready():
            return False
        cortex_prepare()
        return True
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [PREPARE_LOCK_KEY])
