"""What every command that runs Cortex needs first: the schema and the taxonomy, up to date."""

from __future__ import annotations

import io
import re

from django.core.management import call_command
from django.db import DatabaseError, transaction

from memory.selectors.setup import cortex_ready
from memory.services.locks import prepare_lock
from memory.services.preflight import (
    MigrationFailed,
    migration_preflight,
    schema_known_check,
)
from memory.services.schedule import beat_schedule_ensure
from memory.services.taxonomy import SyncReport, taxonomy_sync


def cortex_prepare() -> SyncReport:
    """Apply pending migrations, sync the namespace tree from the config and seed the beat
    schedule's missing entries (all idempotent). The migrations are checked first (a newer
    schema, the disk's room: MigrationRefused, nothing touched) and applied in one
    transaction: a migration that fails leaves the database as it was, not half migrated. One
    process at a time (`cortex up` prepares at every start, beside any other command)."""
    with prepare_lock():
        return _prepare()


def _prepare() -> SyncReport:
    migration_preflight()
    migrate_all_or_none()
    report = taxonomy_sync()
    beat_schedule_ensure()
    return report


def migrate_all_or_none() -> None:
    """Django's migrate in one transaction (each migration a savepoint inside it); a failing
    migration is MigrationFailed naming it, and none of them stays applied. So every
    migration must be able to run in a transaction (no `atomic = False`, no CONCURRENTLY)."""
    said = io.StringIO()
    try:
        with transaction.atomic():
            call_command("migrate", interactive=False, verbosity=1, stdout=said)
    except DatabaseError as error:
        applying = re.findall(r"Applying (\S+)\.\.\.", said.getvalue())
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise MigrationFailed(
            f"the migration {applying[-1] if applying else '?'} failed ({reason}); the "
            "database is as it was before, no migration applied") from error


def cortex_ensure() -> bool:
    """Prepare the database when it is not ready (a fresh CORTEX_HOME, a release with new
    migrations); True when it did. Two commands starting at once prepare it once. A database
    migrated by a newer Cortex is refused (MigrationRefused), whatever the command."""
    schema_known_check()
    if cortex_ready():
        return False
    with prepare_lock():
        if cortex_ready():
            return False
        _prepare()
        return True
