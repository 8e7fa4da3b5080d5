"""What a backup records of the database, and what a restore checks it against: the raw log's
fingerprint (every event, every column, in id order), the migrations applied, the highest
transaction id stamped on a row."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import connection

EVENTS_TABLE = "memory_memoryevent"
FINGERPRINT_BATCH = 10_000
LAST_BACKUP = "last-backup.json"  # in CORTEX_HOME: the last backup's outcome


def backup_last(*, home: Path) -> dict[str, Any] | None:
    """The last backup's outcome (`ok`, `at`, and `path`, `events`... or `error`), or None."""
    try:
        record = json.loads((home / LAST_BACKUP).read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


@dataclass(frozen=True)
class LogFingerprint:
    events: int
    sha256: str  # over each event's row (all its columns), in id order


def log_fingerprint() -> LogFingerprint:
    """The raw log's fingerprint, read in batches by a server-side cursor: equal on two
    databases exactly when they hold the same events, column for column (txid included)."""
    if not table_exists(table=EVENTS_TABLE):
        return LogFingerprint(events=0, sha256=hashlib.sha256().hexdigest())
    digest, count = hashlib.sha256(), 0
    with connection.chunked_cursor() as cursor:
        cursor.execute(f"SELECT md5(e::text) FROM {EVENTS_TABLE} AS e ORDER BY e.id")
        while rows := cursor.fetchmany(FINGERPRINT_BATCH):
            for (row_md5,) in rows:
                digest.update(row_md5.encode())
            count += len(rows)
    return LogFingerprint(events=count, sha256=digest.hexdigest())


def table_exists(*, table: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [f"public.{table}"])
        row = cursor.fetchone()
    return bool(row and row[0])


def migrations_applied() -> dict[str, str]:
    """The last migration applied, per app (what a restore's code must at least know)."""
    if not table_exists(table="django_migrations"):
        return {}
    with connection.cursor() as cursor:
        cursor.execute("SELECT app, max(name) FROM django_migrations GROUP BY app ORDER BY app")
        return {app: name for app, name in cursor.fetchall()}


def txid_max() -> int:
    """The highest transaction id stamped on a row (the event log, the outbox: readers order
    by it), 0 when there is none."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT table_name FROM information_schema.columns "
                       "WHERE table_schema = 'public' AND column_name = 'txid'")
        tables = [name for (name,) in cursor.fetchall()]
        highest = 0
        for table in tables:
            cursor.execute(f'SELECT max(txid) FROM "{table}"')  # names from the catalog
            row = cursor.fetchone()
            highest = max(highest, int(row[0] or 0) if row else 0)
    return highest


def xid_current() -> int:
    """The current transaction's full id (epoch included), assigned if it was not."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_xact_id()::text::bigint")
        row = cursor.fetchone()
    return int(row[0]) if row else 0
