"""The embedded server is set for one operator's database (issue 27): the write-ahead log
bounded by its checkpoints, no WAL sender, autovacuum keeping pace; a new home starts so,
an older one is brought to it (the WAL level from its next start)."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

from cortex_site import embedded

WANTED = {**embedded.WAL_LEVEL, **embedded.STORAGE}


class _Server:
    """pg_settings as a server answers them; the statements it was sent."""

    def __init__(self, settings: dict[str, tuple[str, bool]]) -> None:
        self.settings = settings
        self.run: list[str] = []
        self._rows: list[tuple[str, str, bool]] = []

    def execute(self, sql: str, params: Any = None) -> _Server:
        self.run.append(sql)
        if "pg_settings" in sql:
            self._rows = [(n, v, p) for n, (v, p) in self.settings.items() if n in params[0]]
        return self

    def fetchall(self) -> list[tuple[str, str, bool]]:
        return self._rows


def _written(server: _Server) -> list[str]:
    return [sql.split()[3] for sql in server.run if sql.startswith("ALTER SYSTEM")]


def test_an_older_home_is_given_what_differs_and_never_minimal_with_a_sender() -> None:
    defaults = {"max_wal_senders": ("10", False), "wal_level": ("replica", False),
                "max_wal_size": ("1024", False), "min_wal_size": ("80", False)}
    server = _Server(defaults | {n: (WANTED[n], False) for n in WANTED if n not in defaults})
    embedded._ensure_storage(server)
    assert _written(server) == ["max_wal_senders", "wal_level", "max_wal_size", "min_wal_size"]
    assert server.run[-1] == "SELECT pg_reload_conf()"


def test_nothing_is_written_when_it_holds_or_waits_for_a_restart() -> None:
    server = _Server({n: (WANTED[n], False) for n in WANTED} | {"wal_level": ("replica", True)})
    embedded._ensure_storage(server)
    assert server.run == [server.run[0]]  # the one read


def test_the_senders_go_with_a_wal_level_written_alone() -> None:
    server = _Server({n: (WANTED[n], False) for n in WANTED} | {"wal_level": ("replica", False)})
    embedded._ensure_storage(server)
    assert _written(server) == ["max_wal_senders", "wal_level"]


def test_a_new_home_s_server_starts_with_the_storage_settings(tmp_path: Any) -> None:
    names = list(WANTED)
    script = ("import psycopg; from cortex_site import embedded\n"
              "with psycopg.connect(embedded.postgres_url()) as c:\n"
              f"    rows = c.execute('SELECT name, setting FROM pg_settings WHERE name = ANY(%s)',"
              f" [{names!r}]).fetchall()\n"
              "    print(*sorted(f'{n}={v}' for n, v in rows))")
    env = {**os.environ, "CORTEX_HOME": str(tmp_path / "home")}
    env.pop("XDG_RUNTIME_DIR", None)  # the new home's own lock
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[:3000]
    assert done.stdout.split() == sorted(f"{n}={v}" for n, v in WANTED.items())
