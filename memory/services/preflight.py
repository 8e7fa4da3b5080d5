"""Before a migration touches anything: can it run here? A database migrated by a newer
Cortex, a server without an extension the migrations create, or a disk without the room a
migration may need, is refused with one line saying why and what to do, and nothing is
changed. The migrations themselves then run in one transaction
(memory.services.setup.cortex_prepare): all of them, or none."""

from __future__ import annotations

import re
import shutil

from django.db import connection

from memory.compiled.text import counted
from memory.errors import DomainError, Refused
from memory.selectors.setup import (
    extensions_available,
    extensions_uncreatable,
    migrations_pending,
    migrations_unknown,
    server_major_version,
)
from memory.selectors.storage import data_directory, size_text

# A migration may rewrite a table (ALTER COLUMN ... TYPE, as 0027 did to the events): the new
# copy sits beside the old one until the transaction commits, with its write-ahead log.
WAL_HEADROOM_BYTES = 128 * 2**20
LISTED = 3
# The extensions the migrations create (memory 0001 and 0011), the least version recall
# reads them with (pgvector 0.8: its iterative HNSW scans), and what ships each on the
# server's machine ({major}: the server's major version; Debian's and Ubuntu's names).
CONTRIB = "PostgreSQL's contrib modules (postgresql-contrib)"
EXTENSIONS: dict[str, tuple[tuple[int, ...], str]] = {
    "vector": ((0, 8, 0), "pgvector 0.8 or later (postgresql-{major}-pgvector)"),
    "pg_trgm": ((), CONTRIB),
    "unaccent": ((), CONTRIB),
}


class MigrationRefused(Refused):
    default_code = "migration_refused"
    default_message = "The database cannot be migrated."


class MigrationFailed(DomainError):
    status = 500
    default_code = "migration_failed"
    default_message = "A migration failed; none was applied."


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:LISTED])
    return shown + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "")


def schema_known_check() -> None:
    """Refuse a database migrated by a newer Cortex: this code would read a schema it does
    not know (and never migrate it back)."""
    unknown = migrations_unknown()
    if unknown:
        raise MigrationRefused(
            f"this database was migrated by a newer Cortex ({_listed(unknown)} unknown to "
            "this one): run that Cortex, or restore a backup made by this one into an empty "
            "CORTEX_HOME (cortex restore PATH); nothing was changed")


def _largest_table() -> tuple[str, int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'm') "
            "ORDER BY 2 DESC LIMIT 1")
        row = cursor.fetchone()
    return (str(row[0]), int(row[1])) if row else ("", 0)


def disk_room_check(*, pending: list[str], free_bytes: int | None = None) -> None:
    """Refuse to start migrating when the data directory's disk has less free space than the
    largest table (a migration may rewrite it) plus room for the write-ahead log."""
    directory = data_directory()
    if not pending or (directory is None and free_bytes is None):
        return
    free = free_bytes if free_bytes is not None else shutil.disk_usage(str(directory)).free
    table, size = _largest_table()
    needed = size + WAL_HEADROOM_BYTES
    if free < needed:
        where = f" on {directory}" if directory is not None else ""
        count = counted(len(pending), "migration", "migrations")
        raise MigrationRefused(
            f"not enough free space to migrate ({count} to apply: "
            f"{_listed(pending)}): {size_text(free)} free{where}, {size_text(needed)} needed "
            f"(the largest table, {table or 'none'}, {size_text(size)}, may be rewritten, "
            f"and {size_text(WAL_HEADROOM_BYTES)} for the write-ahead log); free some space "
            "and run cortex up again; nothing was changed")


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text))


def extensions_check(*, pending: list[str], available: dict[str, str] | None = None) -> None:
    """Refuse to start migrating when the server lacks an extension the migrations create,
    or has one older than Cortex reads (an operator's own PostgreSQL without pgvector, say):
    a migration, or recall, would fail on it. `available`: name -> version, as the server
    says (extensions_available)."""
    if not pending:
        return
    if available is None:
        available = extensions_available(list(EXTENSIONS))
    lacking = {name: available.get(name) for name, (least, _) in EXTENSIONS.items()
               if name not in available or _version(available[name]) < least}
    if not lacking:
        return
    major = server_major_version()
    named = ", ".join(f"{name} (it has {version})" if version else name
                      for name, version in lacking.items())
    ships = dict.fromkeys(EXTENSIONS[name][1].format(major=major) for name in lacking)
    raise MigrationRefused(
        f"this PostgreSQL server ({major}) lacks the "
        f"{'extension' if len(lacking) == 1 else 'extensions'} {named} that Cortex needs: "
        f"install {' and '.join(ships)} on its machine, or leave DATABASE_URL unset to run on "
        "Cortex's embedded PostgreSQL, which has them; nothing was changed")


def extensions_creatable_check(*, pending: list[str]) -> None:
    """Refuse to start migrating when the server has an extension the migrations create but
    the role DATABASE_URL names may not create it (an operator's own server, a role that is
    not a superuser): a superuser creates it once, then the migrations find it."""
    if not pending:
        return
    uncreatable = extensions_uncreatable(list(EXTENSIONS))
    names = uncreatable.extensions
    if not names:
        return
    creates = " ".join(f"CREATE EXTENSION {name};" for name in names)
    raise MigrationRefused(
        f"the role {uncreatable.role} may not create the "
        f"{'extension' if len(names) == 1 else 'extensions'} {', '.join(names)} that Cortex "
        f"needs: have a superuser run `{creates}` in the database {uncreatable.database}, "
        "or leave DATABASE_URL unset to run on Cortex's embedded PostgreSQL; nothing was "
        "changed")


def migration_preflight() -> list[str]:
    """Check that the pending migrations can run; the pending ones, in order of name."""
    schema_known_check()
    pending = migrations_pending()
    extensions_check(pending=pending)
    extensions_creatable_check(pending=pending)
    disk_room_check(pending=pending)
    return pending
