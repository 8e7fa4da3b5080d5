"""Any documented command may be the very first one on a fresh CORTEX_HOME: it prepares the
database itself (cortex_site/cli.py), and never ends in a traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from insight.demo.corpus import corpus_write

CORTEX = shutil.which("cortex") or str(Path(sys.executable).parent / "cortex")
PREPARED = "cortex: prepared the database"


def _fresh_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "XDG_RUNTIME_DIR"}}
    env["CORTEX_HOME"] = str(home)
    return env


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([CORTEX, *args], env=_fresh_env(home), capture_output=True,
                          text=True, timeout=300)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr[-3000:]
    return done


def _clear(done: subprocess.CompletedProcess[str]) -> None:
    """Success, or one clear line."""
    lines = [line for line in done.stderr.splitlines() if not line.startswith(PREPARED)]
    assert done.returncode == 0 or len(lines) == 1, done.stderr


@pytest.mark.parametrize("args", [["recall", "x"], ["context", "x"], ["remember", "x"]])
def test_a_first_command_prepares_the_database(tmp_path: Path, args: list[str]) -> None:
    home = tmp_path / "home"
    done = _run(home, *args)
    _clear(done)
    assert PREPARED in done.stderr
    again = _run(home, *args)
    _clear(again)
    assert PREPARED not in again.stderr


def test_ingest_claude_code_is_a_first_command(tmp_path: Path) -> None:
    corpus = corpus_write(tmp_path / "corpus", seed=3, size_bytes=200_000, git=False)
    done = _run(tmp_path / "home", "ingest", "claude-code", str(corpus.projects_root), "--json")
    _clear(done)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["events_stored"] > 0


def test_an_unreachable_database_is_one_line(tmp_path: Path) -> None:
    env = {**_fresh_env(tmp_path / "home"), "DATABASE_URL": "postgres://x@127.0.0.1:1/none"}
    done = subprocess.run([CORTEX, "recall", "x"], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert "database cannot be reached" in done.stderr


@pytest.mark.parametrize(("url", "said"), [
    ("mysql://root:s3cret-pw@db.example/cortex", "not a 'mysql' one"),
    ("sqlite:////tmp/cortex.db", "not a 'sqlite' one"),
    ("s3cret-pw@db.example/cortex", "(postgresql://USER:PASSWORD@HOST:PORT/NAME); or leave"),
])
def test_a_database_url_that_is_not_postgresql_is_one_line(tmp_path: Path, url: str,
                                                          said: str) -> None:
    env = {**_fresh_env(tmp_path / "home"), "DATABASE_URL": url}
    done = subprocess.run([CORTEX, "remember", "x"], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1
    assert done.stderr.startswith("cortex: DATABASE_URL must name a PostgreSQL server ")
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert said in done.stderr and "s3cret" not in done.stderr
