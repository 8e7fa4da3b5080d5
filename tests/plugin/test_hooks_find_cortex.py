"""The hooks find the Cortex that runs (issue 25, item 4): where `cortex up` recorded it
listens; `hook install` says in one line what it found; a hook that cannot reach Cortex is
silent to the model, spools and writes one line to the log; `cortex hook status` shows the
last outcome. And the hooks' help (item 10)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

from memory.models.events import MemoryEvent
from memory.runtime import runtime_write
from memory.services.agents import agent_create
from tests.insight.producers.helpers import CWD, SESSION, record, write

pytestmark = pytest.mark.django_db(transaction=True)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    return {**env, "CORTEX_HOME": str(home), "CORTEX_HOOK_TIMEOUT": "20",
            "CORTEX_HOOK_BUDGET": "60", **extra}


def _hook(home: Path, *args: str, data: bytes = b"", **extra: str
          ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "insight.hooks", *args], input=data.decode(),
                          env=_env(home, **extra), capture_output=True, text=True, timeout=120)


def _input(transcript: Path, event: str) -> bytes:
    return json.dumps({"session_id": SESSION, "transcript_path": str(transcript), "cwd": CWD,
                       "hook_event_name": event}).encode()


def _saved(home: Path, **values: Any) -> None:
    (home / "hooks").mkdir(parents=True, exist_ok=True)
    (home / "hooks" / "config.json").write_text(json.dumps(values))


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    return write(tmp_path / "projects" / "-home-op-code-shop-api" / f"{SESSION}.jsonl",
                 record("u1", text="always use uv"), record("a1", kind="assistant"))


@pytest.fixture
def token() -> str:
    return agent_create(name="claude-code", scopes=["events:write", "context:read"],
                        source="claude-code")[1]


def test_the_hooks_post_where_cortex_up_listens(live_server: Any, transcript: Path,
                                                token: str, tmp_path: Path) -> None:
    """No URL given anywhere: before, the hook spoke to 127.0.0.1:8000 and said nothing."""
    urllib.request.urlopen(f"{live_server.url}/api/health/", timeout=60).read()
    home = tmp_path / "home"
    home.mkdir()
    port = live_server.url.rsplit(":", 1)[1]
    runtime_write(home, {"pid": os.getpid(), "url": f"http://127.0.0.1:{port}"})
    _saved(home, token=token)
    done = _hook(home, "Stop", data=_input(transcript, "Stop"))
    assert done.returncode == 0 and done.stdout == ""
    stored = set(MemoryEvent.objects.values_list("source_id", flat=True))
    assert {"u1", "a1"} <= stored
    status = _hook(home, "status").stdout
    assert "Last hook: Stop" in status and "reached" in status
    assert f"http://127.0.0.1:{port} (from cortex up" in status


def test_a_hook_that_cannot_reach_cortex_spools_and_writes_one_line(
        transcript: Path, token: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    port = _closed_port()
    runtime_write(home, {"pid": os.getpid(), "url": f"http://127.0.0.1:{port}"})
    _saved(home, token=token)
    done = _hook(home, "SessionStart", data=_input(transcript, "SessionStart"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    log = (home / "hooks" / "hook.log").read_text().splitlines()
    assert len(log) == 1
    assert f"Cortex does not answer at http://127.0.0.1:{port} (from cortex up" in log[0]
    spooled = [json.loads(x)["source_id"] for seg in (home / "hooks" / "spool").glob("*.jsonl")
               for x in seg.read_text().splitlines()]
    assert {"u1", "a1"} <= set(spooled)
    status = _hook(home, "status").stdout
    assert "SessionStart" in status and "unreachable" in status
    assert "segment(s) waiting in the spool" in status


def test_without_a_token_the_log_says_to_set_up(transcript: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = _hook(home, "Stop", data=_input(transcript, "Stop"),
                 CORTEX_URL=f"http://127.0.0.1:{_closed_port()}")
    assert (done.returncode, done.stdout) == (0, "")
    (line,) = (home / "hooks" / "hook.log").read_text().splitlines()
    assert "no token: run `cortex setup claude-code`" in line


def test_install_says_in_one_line_what_it_found(live_server: Any, token: str,
                                                tmp_path: Path) -> None:
    urllib.request.urlopen(f"{live_server.url}/api/health/", timeout=60).read()
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    install = ("install", "--project", str(project), "--yes")
    ok = _hook(home, *install, "--url", live_server.url, "--token", token).stdout
    assert f"Cortex answers at {live_server.url} (from " in ok
    assert "accepts the token (events and context)" in ok
    writer = agent_create(name="writer", scopes=["events:write"], source="claude-code")[1]
    partial = _hook(home, *install, "--token", writer).stdout
    assert "cannot read context (HTTP 403, needs context:read)" in partial
    bad = _hook(home, *install, "--token", "not-a-token").stdout
    assert "refuses the token (HTTP 401)" in bad
    down = _hook(home, *install, "--url", f"http://127.0.0.1:{_closed_port()}").stdout
    assert "Cortex does not answer at http://127.0.0.1:" in down


def test_a_confirmation_from_a_pipe_says_standard_input_is_not_a_terminal(
        tmp_path: Path) -> None:
    project = tmp_path / "project"
    done = _hook(tmp_path / "home", "install", "--project", str(project),
                 "--url", f"http://127.0.0.1:{_closed_port()}", data=b"y\n")
    assert done.returncode == 1
    assert "standard input is not a terminal" in done.stdout and "--yes" in done.stdout
    assert not (project / ".claude" / "settings.json").exists()


def test_hook_help_says_what_it_does_its_options_and_an_example(tmp_path: Path) -> None:
    """Before: one usage line, on stderr."""
    done = _hook(tmp_path, "--help")
    assert done.returncode == 0 and done.stderr == ""
    for part in ("Claude Code's hooks for Cortex", "install [--user | --project PATH]",
                 "cortex hook status", "Example:\n  cortex hook install"):
        assert part in done.stdout
    install = _hook(tmp_path, "install", "--help").stdout
    assert "--session-start-tokens" in install and "example: cortex hook install" in install


class _Capture(BaseHTTPRequestHandler):
    bodies: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 - the standard library's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
        type(self).bodies.append({"path": self.path, **body})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"context": "", "events": []}')

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.parametrize("saved, expected", [(None, 1500), (700, 700)])
def test_session_start_asks_within_the_operators_one_setting(
        tmp_path: Path, saved: int | None, expected: int) -> None:
    server = HTTPServer(("127.0.0.1", 0), _Capture)
    _Capture.bodies = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        home = tmp_path / "home"
        _saved(home, token="t", **({"session_start_tokens": saved} if saved else {}))
        done = _hook(home, "SessionStart", CORTEX_URL=f"http://127.0.0.1:{server.server_port}",
                     data=json.dumps({"session_id": SESSION, "cwd": CWD}).encode())
        assert done.returncode == 0
    finally:
        server.shutdown()
    (asked,) = [b for b in _Capture.bodies if b["path"] == "/api/context/"]
    assert asked["budget_tokens"] == expected
