"""Live capture: hooks post to a running Cortex, spool when it is down, flush, lose nothing."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from insight.hooks.install import settings_merge
from memory.models.events import MemoryEvent
from memory.services.agents import agent_create

from .helpers import CWD, SESSION, append, ingest, line, record, write

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    return write(tmp_path / "projects" / "-home-op-code-shop-api" / f"{SESSION}.jsonl",
                 record("u1", text="always use uv"), record("a1", kind="assistant"))


@pytest.fixture
def token() -> str:
    _, key = agent_create(name="claude-code-hooks", scopes=["events:write"], source="claude-code")
    return key


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(home: Path, url: str, token: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    return {**env, "CORTEX_HOME": str(home), "CORTEX_URL": url, "CORTEX_TOKEN": token,
            "CORTEX_HOOK_TIMEOUT": "20", "CORTEX_HOOK_BUDGET": "60"}


def _hook(event: str, transcript: Path, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    hook_input = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": CWD,
                  "hook_event_name": event, "permission_mode": "default"}
    return subprocess.run([sys.executable, "-m", "insight.hooks", event],
                          input=json.dumps(hook_input).encode(), env=env, capture_output=True,
                          timeout=120)


def _spooled(home: Path) -> list[dict[str, Any]]:
    """The transcript's events waiting in the spool (not the hooks' own, hook.<Event>)."""
    return [event for seg in sorted((home / "hooks" / "spool").glob("*.jsonl"))
            for x in seg.read_bytes().splitlines()
            if not (event := json.loads(x))["subtype"].startswith("hook.")]


def _ids() -> list[str]:
    """The transcript's events Cortex stored (not the hooks' own, hook.<Event>)."""
    return sorted(MemoryEvent.objects.filter(source="claude-code")
                  .exclude(subtype__startswith="hook.").values_list("source_id", flat=True))


def _warm(url: str) -> None:
    urllib.request.urlopen(f"{url}/api/health/", timeout=60).read()


def test_hooks_post_new_lines_to_a_running_cortex(live_server: Any, transcript: Path,
                                                  token: str, tmp_path: Path) -> None:
    _warm(live_server.url)
    env = _env(tmp_path / "home", live_server.url, token)
    started = _hook("SessionStart", transcript, env)
    assert started.returncode == 0 and started.stdout == b""  # no context block yet
    assert _ids() == ["a1", "u1"]

    whole = line(record("u3", text="[Request interrupted by user]"))
    append(transcript, line(record("u2")) + whole[:30])
    assert _hook("PostToolUse", transcript, env).returncode == 0
    assert _ids() == ["a1", "u1", "u2"]  # the torn line waits
    append(transcript, whole[30:])
    assert _hook("Stop", transcript, env).returncode == 0
    assert _ids() == ["a1", "u1", "u2", "u3"]
    assert _spooled(tmp_path / "home") == []

    event = MemoryEvent.objects.get(source_id="u3")
    assert (event.subtype, event.actor, event.project) == ("user.interrupt", "operator", "shop-api")
    assert event.payload["_cortex"]["file"] == f"-home-op-code-shop-api/{SESSION}.jsonl"
    # The hooks and `cortex ingest` produce the same events: the ingest finds nothing new.
    summary = ingest("claude-code", str(transcript.parent.parent))
    assert (summary["events_stored"], summary["duplicates"]) == (0, 4)


def test_with_cortex_down_events_are_spooled_then_flushed(live_server: Any, transcript: Path,
                                                          token: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    down = _env(home, f"http://127.0.0.1:{_closed_port()}", token)
    assert _hook("UserPromptSubmit", transcript, down).returncode == 0
    append(transcript, line(record("u2")) + line(record("a2", kind="assistant")))
    assert _hook("PostToolUse", transcript, down).returncode == 0
    assert _ids() == []
    assert sorted(e["source_id"] for e in _spooled(home)) == ["a1", "a2", "u1", "u2"]

    _warm(live_server.url)
    append(transcript, line(record("u3")))
    assert _hook("Stop", transcript, _env(home, live_server.url, token)).returncode == 0
    assert _ids() == ["a1", "a2", "u1", "u2", "u3"]  # nothing lost
    assert _spooled(home) == []


def test_without_a_token_events_wait_in_the_spool(transcript: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    result = _hook("Stop", transcript, _env(home, "http://127.0.0.1:9", ""))
    assert result.returncode == 0
    assert len(_spooled(home)) == 2


def test_an_event_cortex_refuses_is_set_aside_and_the_rest_goes_through(
    live_server: Any, transcript: Path, token: str, tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    spool = home / "hooks" / "spool"
    spool.mkdir(parents=True)
    good = {"source_id": "x1", "type": "claude-code", "subtype": "user.prompt"}
    bad = {"source_id": "x2", "type": "claude-code", "occurred_at": "not a date"}
    (spool / "00000000000000000001-1.jsonl").write_text(
        "\n".join(json.dumps(e) for e in (good, bad)) + "\n")
    _warm(live_server.url)
    assert _hook("Stop", transcript, _env(home, live_server.url, token)).returncode == 0
    assert _ids() == ["a1", "u1", "x1"]
    rejected = (home / "hooks" / "rejected.jsonl").read_text().splitlines()
    assert [json.loads(x)["source_id"] for x in rejected] == ["x2"]


def test_a_broken_input_or_a_missing_transcript_never_fails(tmp_path: Path) -> None:
    env = _env(tmp_path / "home", "http://127.0.0.1:9", "t")
    for data in (b"", b"not json", b'{"transcript_path": "/nowhere/x.jsonl"}'):
        result = subprocess.run([sys.executable, "-m", "insight.hooks", "PostToolUse"],
                                input=data, env=env, capture_output=True, timeout=60)
        assert result.returncode == 0


def test_the_cortex_entry_runs_hooks_without_django_settings_or_celery(tmp_path: Path) -> None:
    # Celery's import alone is ~0.12 s, paid by every hook call if the package imported it.
    code = ("import sys; sys.argv = ['cortex', 'hook', 'status']\n"
            "from cortex_site import cli\n"
            "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'django', 'celery'}),"
            " 'cortex_site.settings' in sys.modules)")
    env = _env(tmp_path / "home", "http://127.0.0.1:9", "t")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         timeout=60, check=True).stdout.decode().splitlines()
    assert out[-1] == "[] False"


def _install(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "insight.hooks", "install", *args], env=env,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)


def test_install_shows_the_diff_then_writes_the_hook_entries(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    other = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                                                           "command": "./guard.sh"}]}]}
    settings.write_text(json.dumps({"model": "sonnet", "hooks": other}))
    env = _env(tmp_path / "home", "http://127.0.0.1:9", "")
    env.pop("CORTEX_TOKEN")

    refused = _install("--project", str(project), env=env)
    assert refused.returncode == 1 and "+" in refused.stdout and "PostToolUse" in refused.stdout
    assert "PostToolUse" not in settings.read_text()  # not confirmed: nothing written

    secret = "tok_" + "x" * 40
    done = _install("--project", str(project), "--yes", "--url", "http://127.0.0.1:8000",
                    "--token", secret, env=env)
    assert done.returncode == 0 and secret not in done.stdout + done.stderr
    written = json.loads(settings.read_text())
    assert written["model"] == "sonnet"
    assert written["hooks"]["PreToolUse"] == other["PreToolUse"]
    for event in ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"):
        [group] = written["hooks"][event]
        assert group["hooks"][0]["command"].endswith(f"-m insight.hooks {event}")
    config = tmp_path / "home" / "hooks" / "config.json"
    assert json.loads(config.read_text())["token"] == secret
    assert stat.S_IMODE(config.stat().st_mode) == 0o600

    again = _install("--project", str(project), "--yes", env=env)
    assert again.returncode == 0 and "already installed" in again.stdout
    assert json.loads(settings.read_text()) == written


def test_merging_updates_our_entries_in_place() -> None:
    first = settings_merge({}, command="/old/python -m insight.hooks")
    second = settings_merge(first, command="/new/python -m insight.hooks")
    assert [g["hooks"][0]["command"] for g in second["hooks"]["Stop"]] == [
        "/new/python -m insight.hooks Stop"]


def test_a_session_start_and_a_prompt_are_stored_before_the_transcript_exists(
        live_server: Any, token: str, tmp_path: Path) -> None:
    """Claude Code writes a session's first lines once its first exchange is done: the hooks
    post what their input says (hook.<Event>), which no analyzer reads as the prompt."""
    _warm(live_server.url)
    env = _env(tmp_path / "home", live_server.url, token)
    missing = tmp_path / "projects" / "-home-op-code-shop-api" / f"{SESSION}.jsonl"
    assert _hook("SessionStart", missing, env).returncode == 0
    hook_input = {"session_id": SESSION, "transcript_path": str(missing), "cwd": CWD,
                  "hook_event_name": "UserPromptSubmit", "prompt": "always use uv",
                  "prompt_id": "p-1"}
    for _ in range(2):  # the same prompt posted twice is one event
        subprocess.run([sys.executable, "-m", "insight.hooks", "UserPromptSubmit"],
                       input=json.dumps(hook_input).encode(), env=env, timeout=120)
    stored = {e.subtype: e for e in MemoryEvent.objects.filter(source="claude-code")}
    assert sorted(stored) == ["hook.SessionStart", "hook.UserPromptSubmit"]
    prompt = stored["hook.UserPromptSubmit"]
    assert prompt.source_id == f"hook:{SESSION}:UserPromptSubmit:p-1"
    assert (prompt.project, prompt.correlation["session"]) == ("shop-api", SESSION)
    assert prompt.payload["prompt"] == "always use uv"
    from insight.analyzers import ANALYZERS
    from insight.services.analysis import event_as_dict

    events = [event_as_dict(e) for e in stored.values()]
    drafts = [d for a in ANALYZERS.values() for d in a.analyze(events)]
    # That the session happened in the project counts; the prompt is read from the
    # transcript's own record, not from this one.
    assert {d.category for d in drafts} <= {"project_activity"}
    assert not [d for d in drafts if "uv" in repr(d)]
