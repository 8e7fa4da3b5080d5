"""Where the database keeps its files, and how a size reads: light enough for every command's
start (the migrations' pre-flight), shared by `cortex doctor` and the dashboard."""

from __future__ import annotations

from pathlib import Path

from django.db import connection


def size_text(count: int | None) -> str:
    """A size as the report shows it (`cortex doctor` and the dashboard alike)."""
    if count is None:
        return "unknown (this role may not list it)"
    if count < 1024:
        return f"{count} B"
    size = float(count)
    for unit in ("KiB", "MiB", "GiB"):
        size /= 1024
        if size < 1024 or unit == "GiB":
            break
    return f"{size:.1f} {unit}"


def data_directory() -> Path | None:
    """The server's data directory when it is on this machine and this role may read it (the
    embedded server's; a configured server's only when local and granted)."""
    with connection.cursor() as cursor:  # a role that may not read it sees no row, no error
        cursor.execute("SELECT setting FROM pg_settings WHERE name = 'data_directory'")
        row = cursor.fetchone()
    path = Path(str(row[0])) if row else None
    return path if path is not None and path.is_dir() else None
