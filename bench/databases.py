"""The throwaway databases benchmarks run on, on the embedded server (the log is
append-only: bench rows must never land in the operator's database)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent


def database_urls(name: str) -> tuple[str, str]:
    """(the server's maintenance database, the bench database `name`)."""
    from cortex_site import embedded

    parts = urlsplit(embedded.postgres_url())
    return (urlunsplit(parts._replace(path="/postgres")),
            urlunsplit(parts._replace(path=f"/{name}")))


def database_drop(admin: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def database_recreate(admin: str, name: str) -> None:
    import psycopg

    database_drop(admin, name)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')


def manage(env: dict[str, str], *args: str) -> str:
    """`manage.py ARGS` under `env` (e.g. DATABASE_URL of the bench database); its stdout."""
    return subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout
