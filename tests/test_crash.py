"""The embedded PostgreSQL killed (SIGKILL, the postmaster and every backend: a power cut)
in the middle of a first import and in the middle of a retain chunk; Cortex started again
recovers by itself, and nothing is lost or duplicated: every transcript line is one event,
and the graph is the one a clean replay of the log builds.

Each test has a CORTEX_HOME and an embedded server of its own (the test database's server is
not the one killed). A transaction of the test holds a lock the writer needs, so the kill
lands while the writer's transaction is open, not by chance of timing."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import psycopg
import pytest

from insight.demo.corpus import corpus_write

CORTEX = shutil.which("cortex") or str(Path(sys.executable).parent / "cortex")
DEADLINE = 600.0


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "XDG_RUNTIME_DIR"}}
    env["CORTEX_HOME"] = str(home)
    return env


def _cortex(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CORTEX, *args], env=_env(home), capture_output=True, text=True,
                          timeout=DEADLINE)


def _postmaster(home: Path) -> tuple[int, str, int]:
    """(pid, socket directory, port) of the home's running server."""
    lines = (home / "pgdata" / "postmaster.pid").read_text().splitlines()
    return int(lines[0]), lines[4], int(lines[3])


def _connect(home: Path) -> psycopg.Connection[tuple[object, ...]]:
    _, socket_dir, port = _postmaster(home)
    return psycopg.connect(host=socket_dir, port=port, user="postgres", dbname="cortex")


def _wait(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def _power_cut(home: Path) -> None:
    postmaster = psutil.Process(_postmaster(home)[0])
    everyone = [postmaster, *postmaster.children(recursive=True)]
    for process in everyone:
        with contextlib.suppress(psutil.NoSuchProcess):  # a backend may exit on its own
            process.kill()
    psutil.wait_procs(everyone, timeout=30)


def _accepts(home: Path) -> bool:
    try:
        with _connect(home):
            return True
    except (OSError, IndexError, psycopg.OperationalError):
        return False


def _blocked_on_lock(home: Path) -> bool:
    with _connect(home) as conn:
        row = conn.execute("SELECT count(*) FROM pg_locks WHERE NOT granted").fetchone()
    return bool(row and int(str(row[0])) > 0)


def _kill_while_blocked(home: Path, table: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `cortex ARGS` while a transaction holds `table` against writes; once the command
    waits for it, cut the database's power."""
    holder = _connect(home)
    holder.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")  # reads go on, writes wait
    writer = subprocess.Popen([CORTEX, *args], env=_env(home), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        _wait(lambda: writer.poll() is not None or _blocked_on_lock(home),
              f"cortex {' '.join(args)} to wait for {table}")
        assert writer.poll() is None, writer.communicate()
        _power_cut(home)
        out, err = writer.communicate(timeout=DEADLINE)
    finally:
        if writer.poll() is None:
            writer.kill()
    return subprocess.CompletedProcess(writer.args, writer.returncode, out, err)


def _lines(projects: Path) -> int:
    return sum(1 for f in projects.rglob("*.jsonl") for line in f.read_text().splitlines()
               if line.strip())


def _assert_nothing_lost_or_duplicated(home: Path, projects: Path) -> None:
    keeper = _keep_server(home)
    try:
        _wait(lambda: _accepts(home), "the server to accept connections")
        with _connect(home) as conn:
            total, distinct = conn.execute(
                "SELECT count(*), count(DISTINCT (source, source_id)) FROM memory_memoryevent "
                "WHERE source = 'claude-code'").fetchone() or (0, 0)
            pending = conn.execute("SELECT count(*) FROM memory_observation "
                                   "WHERE status = 'pending'").fetchone()
    finally:
        keeper.kill()
        keeper.wait()
    assert total == distinct == _lines(projects)
    assert pending is not None and pending[0] == 0
    incremental = _cortex(home, "rebuild", "graph", "--digest")
    assert incremental.returncode == 0, incremental.stderr[-2000:]
    replay = _cortex(home, "rebuild", "graph", "--yes")
    assert replay.returncode == 0, replay.stderr[-2000:]
    assert f"digest {incremental.stdout.strip()}" in replay.stdout


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return corpus_write(tmp_path / "corpus", seed=3, size_bytes=300_000, git=False).projects_root


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A prepared CORTEX_HOME whose embedded server runs while the test holds a handle."""
    home = tmp_path / "home"
    assert _cortex(home, "taxonomy", "show").returncode == 0
    return home


def _keep_server(home: Path) -> subprocess.Popen[str]:
    """A process holding the embedded server (it stops with its last user)."""
    return subprocess.Popen([CORTEX, "shell", "-c", "import time; time.sleep(3600)"],
                            env=_env(home), text=True)


def test_a_power_cut_in_the_middle_of_a_first_import(home: Path, corpus: Path) -> None:
    keeper = _keep_server(home)
    try:
        _wait(lambda: _accepts(home), "the server to accept connections")
        cut = _kill_while_blocked(home, "memory_observation", "ingest", "claude-code",
                                  str(corpus), "--json")
    finally:
        keeper.kill()
        keeper.wait()
    assert cut.returncode != 0
    # Its last line says what happened and what resumes it. (The first import's analysis
    # process prints its own traceback above it: its owner's to quiet.)
    last = cut.stderr.strip().splitlines()[-1]
    assert "resume" in last or "cannot be reached" in last, cut.stderr[-3000:]
    again = _cortex(home, "ingest", "claude-code", str(corpus), "--json")
    assert again.returncode == 0, again.stderr[-3000:]
    assert json.loads(again.stdout.strip().splitlines()[-1])["malformed"] == {}
    assert _cortex(home, "retain").returncode == 0
    _assert_nothing_lost_or_duplicated(home, corpus)


def test_a_power_cut_in_the_middle_of_a_retain_chunk(home: Path, corpus: Path) -> None:
    assert _cortex(home, "ingest", "claude-code", str(corpus), "--raw-only").returncode == 0
    assert _cortex(home, "analyze").returncode == 0
    keeper = _keep_server(home)
    try:
        _wait(lambda: _accepts(home), "the server to accept connections")
        with _connect(home) as conn:
            row = conn.execute("SELECT count(*) FROM memory_observation "
                               "WHERE status = 'pending'").fetchone()
        assert row is not None and int(str(row[0])) > 0
        cut = _kill_while_blocked(home, "memory_entity", "retain", "--no-embed")
    finally:
        keeper.kill()
        keeper.wait()
    assert cut.returncode != 0
    assert "Traceback" not in cut.stderr, cut.stderr[-3000:]
    done = _cortex(home, "retain")
    assert done.returncode == 0, done.stderr[-3000:]
    _assert_nothing_lost_or_duplicated(home, corpus)
