"""The embedded server's shared_buffers: from the environment, else an eighth of the memory
within PostgreSQL's default and 1GB; written for the next start only when it differs."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from cortex_site import embedded


class _Conn:
    def __init__(self, differs: bool, pending: bool) -> None:
        self.answer = (differs, pending)
        self.run: list[str] = []

    def execute(self, sql: str, params: Any = None) -> _Conn:
        self.run.append(sql)
        return self

    def fetchone(self) -> tuple[bool, bool]:
        return self.answer


def test_the_environment_sets_it_else_an_eighth_of_the_memory_within_bounds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORTEX_PG_SHARED_BUFFERS", "256MB")
    assert embedded.shared_buffers() == "256MB"
    monkeypatch.delenv("CORTEX_PG_SHARED_BUFFERS")
    megabytes = int(embedded.shared_buffers().removesuffix("MB"))
    assert 128 <= megabytes <= 1024


def test_written_only_when_it_differs_and_is_not_already_waiting_for_a_restart() -> None:
    for differs, pending, written in ((True, False, True), (False, False, False),
                                      (True, True, False)):
        conn = _Conn(differs, pending)
        embedded._ensure_buffers(conn, "512MB")
        assert any("ALTER SYSTEM" in sql for sql in conn.run) == written


def test_a_size_it_cannot_read_is_refused_before_any_sql() -> None:
    conn = _Conn(True, False)
    with pytest.raises(embedded.EmbeddedError):
        embedded._ensure_buffers(conn, "512MB'; DROP TABLE x; --")
    assert conn.run == []


def test_a_new_home_s_server_starts_with_cortex_s_settings(tmp_path: Any) -> None:
    """The first start of a new CORTEX_HOME already runs with them (not from the next)."""
    script = ("import psycopg; from cortex_site import embedded\n"
              "with psycopg.connect(embedded.postgres_url()) as c:\n"
              "    print(*(c.execute(f'SHOW {n}').fetchone()[0]"
              " for n in ('shared_buffers', 'max_connections')))")
    env = {**os.environ, "CORTEX_HOME": str(tmp_path / "home"),
           "CORTEX_PG_SHARED_BUFFERS": "160MB"}
    env.pop("XDG_RUNTIME_DIR", None)  # the new home's own lock
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[:3000]
    assert done.stdout.split() == ["160MB", str(embedded.MAX_CONNECTIONS)]
