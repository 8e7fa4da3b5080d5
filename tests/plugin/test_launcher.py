"""The plugin's launcher: never a hook error, whatever state Cortex is in; nothing left
running; a session seen while `cortex` could not run is read once it can."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from tests.insight.producers.helpers import CWD, SESSION, record, write

LAUNCHER = Path(__file__).resolve().parents[2] / "plugin" / "bin" / "cortex-launch"
CORTEX = Path(sys.executable).parent / "cortex"


def _closed_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def _launch(home: Path, *args: str, data: str = "", **extra: str
            ) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home.parent), "CORTEX_HOME": str(home),
           "CORTEX_URL": _closed_url(), **extra}
    return subprocess.run([str(LAUNCHER), *args], input=data, env=env, capture_output=True,
                          text=True, timeout=120)


def _input(transcript: Path, event: str) -> str:
    return json.dumps({"session_id": SESSION, "transcript_path": str(transcript), "cwd": CWD,
                       "hook_event_name": event})


def _link(home: Path, target: Path) -> None:
    (home / "claude-code").mkdir(parents=True, exist_ok=True)
    (home / "claude-code" / "cortex").symlink_to(target)


def test_without_cortex_a_hook_is_silent_keeps_the_session_and_says_why(tmp_path: Path) -> None:
    home = tmp_path / "cortex-home"
    transcript = write(tmp_path / "projects" / "-home-op-code-shop-api" / f"{SESSION}.jsonl",
                       record("u1", text="always use uv"), record("a1", kind="assistant"))
    done = _launch(home, "hook", "SessionStart", data=_input(transcript, "SessionStart"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    (kept,) = (home / "hooks" / "waiting").glob("*.json")
    assert json.loads(kept.read_text())["transcript_path"] == str(transcript)
    (line,) = (home / "hooks" / "hook.log").read_text().splitlines()
    assert "SessionStart: cortex is not installed" in line
    mcp = _launch(home, "mcp")
    assert mcp.returncode == 1 and "cortex is not installed" in mcp.stderr

    # Installed: the next hook (of another session) reads the session that waited.
    _link(home, CORTEX)
    other = write(tmp_path / "projects" / "-home-op-code-web" / "other.jsonl")
    done = _launch(home, "hook", "Stop", data=_input(other, "Stop"))
    assert (done.returncode, done.stdout) == (0, "")
    assert list((home / "hooks" / "waiting").glob("*.json")) == []
    spooled = [json.loads(x)["source_id"] for seg in (home / "hooks" / "spool").glob("*.jsonl")
               for x in seg.read_text().splitlines()]
    assert {"u1", "a1"} <= set(spooled)


def test_a_broken_cortex_is_no_hook_error(tmp_path: Path) -> None:
    home = tmp_path / "cortex-home"
    broken = tmp_path / "broken-cortex"
    broken.write_text("#!/bin/sh\necho 'Traceback: ImportError' >&2\nexit 3\n")
    broken.chmod(0o755)
    _link(home, broken)
    done = _launch(home, "hook", "UserPromptSubmit", data="{}")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert "ImportError" in (home / "hooks" / "hook.log").read_text()


def test_the_mcp_server_starts_nothing_when_cortex_is_not_running(tmp_path: Path) -> None:
    home = tmp_path / "cortex-home"
    _link(home, CORTEX)
    (home / "hooks").mkdir(parents=True)
    (home / "hooks" / "config.json").write_text(json.dumps({"token": "t"}))
    done = _launch(home, "mcp")
    assert done.returncode == 1 and "Cortex is not running" in done.stderr
    # No embedded database or Redis started for it: only what the test and the log wrote.
    assert set(os.listdir(home)) <= {"claude-code", "hooks"}


def test_a_log_that_cannot_be_written_neither_fails_the_hook_nor_stops_cortex(
        tmp_path: Path) -> None:
    home = tmp_path / "cortex-home"
    _link(home, CORTEX)
    (home / "hooks" / "hook.log").mkdir(parents=True)  # not a file: nothing can append to it
    transcript = write(tmp_path / "projects" / "-home-op-code-shop-api" / f"{SESSION}.jsonl",
                       record("u1", text="always use uv"))
    done = _launch(home, "hook", "Stop", data=_input(transcript, "Stop"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    spooled = [json.loads(x)["source_id"] for seg in (home / "hooks" / "spool").glob("*.jsonl")
               for x in seg.read_text().splitlines()]
    assert spooled == ["u1"]

    under_a_file = tmp_path / "a-file"
    under_a_file.write_text("")
    done = _launch(under_a_file / "home", "hook", "Stop", data=_input(transcript, "Stop"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
