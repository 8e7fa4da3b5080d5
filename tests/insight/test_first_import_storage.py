"""The embedded server is set for one operator's database (issue 27): the write-ahead log
bounded by its checkpoints, no WAL sender, autovacuum keeping pace, the buffer cache kept
across a restart; a new home starts so, an older one is brought to it (the WAL level and
the preloaded library from its next start)."""

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


def _in_new_home(home: Any, script: str) -> str:
    env = {**os.environ, "CORTEX_HOME": str(home)}
    env.pop("XDG_RUNTIME_DIR", None)  # the new home's own lock
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[:3000]
    return done.stdout


def test_the_buffer_cache_outlives_a_restart(tmp_path: Any) -> None:
    """autoprewarm: the blocks the cache held are listed when the server stops (its last
    user gone) and read back when it starts again."""
    home = tmp_path / "home"
    script = ("import psycopg; from cortex_site import embedded\n"
              "with psycopg.connect(embedded.postgres_url()) as c:\n"
              "    print(c.execute('SHOW shared_preload_libraries').fetchone()[0])\n"
              "    c.execute('SELECT count(*) FROM pg_class').fetchone()\n")
    assert _in_new_home(home, script).split() == ["pg_prewarm"]
    listed = (home / "pgdata" / "autoprewarm.blocks").read_text().splitlines()
    count = int(listed[0].strip("<>"))
    assert count > 0 and len(listed) == count + 1
    # read back in the background once the server is up: waited for while it runs
    again = """
import time
from cortex_site import embedded
embedded.postgres_url()
log = embedded.cortex_home() / "pgdata" / "log"
deadline = time.monotonic() + 30
while "autoprewarm successfully" not in log.read_text() and time.monotonic() < deadline:
    time.sleep(0.1)
said = [line for line in log.read_text().splitlines() if "autoprewarm successfully" in line]
print(said[-1].split("LOG:")[1].strip() if said else "")
"""
    assert _in_new_home(home, again).strip() == (
        f"autoprewarm successfully prewarmed {count} of {count} previously-loaded blocks")
