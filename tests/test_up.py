"""`cortex up` on the embedded default: starts everything, shares servers, leaves nothing behind."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil

CORTEX = shutil.which("cortex") or str(Path(sys.executable).parent / "cortex")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _embedded_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env["CORTEX_HOME"] = str(home)
    env.pop("XDG_RUNTIME_DIR", None)
    return env


def _wait_healthy(url: str, proc: subprocess.Popen[str], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "cortex up exited"
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise AssertionError("cortex up never became healthy")


def _server_pids(home: Path) -> set[int]:
    pids = set()
    postmaster = home / "pgdata" / "postmaster.pid"
    if postmaster.exists():
        pids.add(int(postmaster.read_text().split()[0]))
    redis_pid = home / "redis" / "redis.pid"
    if redis_pid.exists():
        pids.add(int(redis_pid.read_text().strip()))
    return pids


def _workers(proc: subprocess.Popen[str]) -> dict[str, list[str]]:
    """The Celery workers `cortex up` started: node name -> the queues it consumes."""
    found = {}
    for child in psutil.Process(proc.pid).children():
        cmd = child.cmdline()
        if "worker" in cmd and "-Q" in cmd and "-n" in cmd:
            found[cmd[cmd.index("-n") + 1].split("@")[0]] = cmd[cmd.index("-Q") + 1].split(",")
    return found


def _wait_ready(log: Path, names: list[str], proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 90
    while not all(f"{name}@" in _ready_lines(log) for name in names):
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
        time.sleep(0.5)


def _ready_lines(log: Path) -> str:
    return "\n".join(line for line in log.read_text().splitlines() if line.endswith(" ready."))


def test_up_runs_everything_on_the_embedded_default_and_stops_cleanly(tmp_path: Path) -> None:
    home = tmp_path / "home"
    port = _free_port()
    env = _embedded_env(home)
    log = tmp_path / "up.log"
    proc = subprocess.Popen(
        [CORTEX, "up", "--port", str(port), "--workers", "1"],
        env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, text=True,
    )
    try:
        _wait_healthy(f"http://127.0.0.1:{port}/api/health/", proc)
        # Two workers: the short tasks on one queue, the long jobs (sleep cycle, embedding
        # passes) on another, so that retain and analysis never wait behind them.
        _wait_ready(log, ["default", "long"], proc)
        assert _workers(proc) == {"default": ["default"], "long": ["long"]}
        servers = _server_pids(home)
        assert len(servers) == 2 and all(psutil.pid_exists(pid) for pid in servers)
        # Where it listens, for the hooks (issue 25): readable by the operator only.
        record = json.loads((home / "up.json").read_text())
        assert (record["url"], record["pid"]) == (f"http://127.0.0.1:{port}", proc.pid)
        assert (home / "up.json").stat().st_mode & 0o077 == 0

        # A second cortex process reuses the running servers instead of starting others.
        second = subprocess.run(
            [CORTEX, "showmigrations", "memory"], env=env, capture_output=True, text=True,
            timeout=60,
        )
        assert second.returncode == 0, second.stderr
        assert _server_pids(home) == servers
        assert all(psutil.pid_exists(pid) for pid in servers)

        with urllib.request.urlopen(f"http://127.0.0.1:{port}/admin/login/", timeout=5) as page:
            assert page.status == 200
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    output = log.read_text()

    assert proc.returncode == 0, output
    stopped = json.loads((home / "up.json").read_text())  # its address kept, marked stopped
    assert stopped["url"] == f"http://127.0.0.1:{port}" and stopped["stopped_at"]
    assert "database_url" not in stopped
    assert "operator account created" in output
    assert f"http://127.0.0.1:{port}/admin/" in output
    deadline = time.monotonic() + 15
    while any(psutil.pid_exists(pid) for pid in servers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(psutil.pid_exists(pid) for pid in servers), "embedded servers left running"
