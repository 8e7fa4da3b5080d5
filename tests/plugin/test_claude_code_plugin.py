"""The plugin with the real Claude Code client (issue 26): validated, added from this
checkout as a marketplace, installed; then `claude -p` in a project Cortex knows, with a real
`cortex up`: Cortex's context reaches the session and its transcript, the events are stored
live, the injection ledger has the session, re-ingesting adds no observation made of Cortex's
own context; with Cortex stopped the hooks succeed in silence and nothing is left running;
uninstalled, the plugin leaves nothing behind.

Without credentials Claude Code runs SessionStart and UserPromptSubmit, writes the
transcript, then stops with "Not logged in" (tried with 2.1.328)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from memory.context.render import FENCE_CLOSE, FENCE_OPEN

from .claude_client import claude_binary, client_env

CHECKOUT = Path(__file__).resolve().parents[2]
CORTEX = str(Path(sys.executable).parent / "cortex")
PROMPT = "add a retry with backoff to the HTTP client"
RULE = "Never use requests in this project, use httpx instead."


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cortex_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"DATABASE_URL", "REDIS_URL", "XDG_RUNTIME_DIR"}
           and not k.startswith("CORTEX_")}
    return {**env, "CORTEX_HOME": str(home)}


def _cortex(home: Path, *args: str, timeout: float = 300) -> str:
    done = subprocess.run([CORTEX, *args], env=_cortex_env(home), capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, f"cortex {' '.join(args)}: {done.stdout}\n{done.stderr}"
    return done.stdout


def _seed_transcript(root: Path, project_dir: Path) -> Path:
    """A past session in the project, where the operator gave a rule."""
    session = str(uuid.uuid4())
    base = {"parentUuid": None, "isSidechain": False, "userType": "external",
            "cwd": str(project_dir), "sessionId": session, "version": "2.1.300",
            "gitBranch": "main"}
    records = [
        {**base, "type": "user", "uuid": str(uuid.uuid4()),
         "timestamp": "2026-11-30T09:00:00.000Z",
         "message": {"role": "user", "content": RULE}},
        {**base, "type": "assistant", "uuid": str(uuid.uuid4()),
         "timestamp": "2026-11-30T09:00:05.000Z", "requestId": "req_1",
         "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
                     "content": [{"type": "text", "text": "Understood: httpx it is."}]}},
    ]
    enc = "".join(c if c.isalnum() else "-" for c in str(project_dir))
    path = root / enc / f"{session}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


class Cortex:
    """A real `cortex up` on a CORTEX_HOME of its own (embedded PostgreSQL and Redis)."""

    def __init__(self, home: Path, log: Path) -> None:
        self.home, self.port = home, _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen([CORTEX, "up", "--port", str(self.port), "--workers", "1"],
                                     env=_cortex_env(home), stdout=log.open("w"),
                                     stderr=subprocess.STDOUT)
        self.log = log
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, log.read_text()[-3000:]
            try:
                with urllib.request.urlopen(f"{self.url}/api/health/", timeout=5):
                    return
            except OSError:
                time.sleep(0.5)
        raise AssertionError(f"cortex up never answered\n{log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            self.proc.wait(timeout=90)

    def post(self, path: str, body: dict[str, Any], token: str) -> dict[str, Any]:
        request = urllib.request.Request(
            f"{self.url}{path}", data=json.dumps(body).encode(), method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Token {token}"})
        with urllib.request.urlopen(request, timeout=120) as response:
            answer: dict[str, Any] = json.loads(response.read())
            return answer

    def query(self, code: str) -> Any:
        """Run `code` (which prints JSON) against this Cortex's database."""
        return json.loads(_cortex(self.home, "shell", "-c", code).strip().splitlines()[-1])


@pytest.fixture
def claude() -> Path:
    return claude_binary()


@pytest.fixture
def world(tmp_path: Path) -> Iterator[dict[str, Path]]:
    paths = {"home": tmp_path / "user-home", "cortex": tmp_path / "cortex-home",
             "project": tmp_path / "code" / "billing-api", "seed": tmp_path / "seed"}
    for path in paths.values():
        path.mkdir(parents=True)
    yield paths


def _run_claude(claude: Path, world: dict[str, Path], *args: str, cwd: Path | None = None,
                timeout: float = 240) -> subprocess.CompletedProcess[str]:
    # A generous hook budget: the machine running the tests is shared and slow; the
    # hooks' own defaults (0.4 s a request) are measured in bench/hook_latency.py.
    env = client_env(world["home"], CORTEX_HOME=str(world["cortex"]),
                     CORTEX_HOOK_TIMEOUT="8", CORTEX_HOOK_BUDGET="9")
    return subprocess.run([str(claude), *args], cwd=str(cwd or world["home"]), env=env,
                          capture_output=True, text=True, timeout=timeout)


def _transcripts(world: dict[str, Path]) -> dict[str, Path]:
    root = world["home"] / ".claude" / "projects"
    return {p.stem: p for p in root.glob("*/*.jsonl")}


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _hook_attachments(path: Path) -> list[dict[str, Any]]:
    return [r["attachment"] for r in _records(path) if r.get("type") == "attachment"
            and str(r["attachment"].get("type", "")).startswith("hook_")]


def _ours(home: Path) -> list[str]:
    """Processes of this CORTEX_HOME still running (hooks, MCP server, embedded servers)."""
    found = []
    for proc in psutil.process_iter(["pid", "cmdline"]):
        try:
            if proc.environ().get("CORTEX_HOME") == str(home) or any(
                    str(home) in part for part in proc.info["cmdline"] or []):
                found.append(f"{proc.pid} {' '.join(proc.info['cmdline'] or [])}")
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def _plugin_commands(claude: Path, world: dict[str, Path]) -> None:
    for target in (CHECKOUT, CHECKOUT / "plugin"):
        checked = _run_claude(claude, world, "plugin", "validate", "--strict", str(target))
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "⚠" not in checked.stdout and "warning" not in checked.stdout.casefold()
    added = _run_claude(claude, world, "plugin", "marketplace", "add", str(CHECKOUT))
    assert added.returncode == 0, added.stdout + added.stderr
    installed = _run_claude(claude, world, "plugin", "install", "cortex@cortex")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    details = _run_claude(claude, world, "plugin", "details", "cortex@cortex").stdout
    assert "Hooks (4)  SessionStart, UserPromptSubmit, PostToolUse, Stop" in details, details
    assert "MCP servers (1)  cortex" in details and "Skills (2)" in details, details
    # No always-on cost beyond the skills' descriptions (a hundred tokens or so).
    always_on = next(line for line in details.splitlines() if "Always-on" in line)
    assert int("".join(c for c in always_on.split("~")[1].split()[0] if c.isdigit())) < 200


def _uninstalled_leaves_nothing(claude: Path, world: dict[str, Path]) -> None:
    removed = _run_claude(claude, world, "plugin", "uninstall", "cortex@cortex")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    gone = _run_claude(claude, world, "plugin", "marketplace", "remove", "cortex")
    assert gone.returncode == 0, gone.stdout + gone.stderr
    plugins = world["home"] / ".claude" / "plugins"
    # Claude Code keeps an uninstalled plugin's copy, marked orphaned, until it sweeps its
    # cache: that copy is the client's, and no longer loaded.
    versions = list((plugins / "cache" / "cortex" / "cortex").glob("*"))
    assert all((version / ".orphaned_at").exists() for version in versions)
    listed = _run_claude(claude, world, "plugin", "list").stdout
    assert "cortex@cortex" not in listed
    state = world["home"] / ".claude.json"
    assert "plugin:cortex" not in (state.read_text() if state.exists() else "")
    for name in ("installed_plugins.json", "known_marketplaces.json"):
        if (plugins / name).exists():
            assert "cortex" not in (plugins / name).read_text()
    settings = world["home"] / ".claude" / "settings.json"
    assert "cortex" not in (settings.read_text() if settings.exists() else "")


SESSION_FACTS = """
import json
from memory.models.context import ContextInjection
from memory.models.events import MemoryEvent
from memory.models.observations import Observation
session = {session!r}
events = list(MemoryEvent.objects.filter(source="claude-code", correlation_session=session)
              .values_list("id", "subtype"))
ids = [str(i) for i, _ in events]
said = [json.dumps([o.category, o.topic, o.payload_typed], default=str)
        for o in Observation.objects.filter(event_ids__overlap=ids)]
print(json.dumps({{"events": [s for _, s in events], "observations": said,
                  "ledger": ContextInjection.objects.filter(session=session).count()}}))
"""


def test_the_plugin_with_the_real_client(claude: Path, world: dict[str, Path],
                                         tmp_path: Path) -> None:
    _plugin_commands(claude, world)
    cortex = Cortex(world["cortex"], tmp_path / "up.log")
    try:
        setup = _cortex(world["cortex"], "setup", "claude-code")
        assert f"Cortex answers at {cortex.url}" in setup, setup
        config = json.loads((world["cortex"] / "hooks" / "config.json").read_text())
        assert (world["cortex"] / "hooks" / "config.json").stat().st_mode & 0o077 == 0
        # A project Cortex knows: a past session there, where the operator gave a rule.
        _seed_transcript(world["seed"], world["project"])
        _cortex(world["cortex"], "ingest", "claude-code", str(world["seed"]))
        expected = cortex.post("/api/context/", {
            "query": "billing-api pitfalls instructions", "agent": "claude-code",
            "project": "billing-api", "budget_tokens": 1500}, config["token"])["context"]
        assert "httpx" in expected  # the rule is what the project's context holds

        done = _run_claude(claude, world, "-p", PROMPT, cwd=world["project"])
        assert "Not logged in" in done.stdout + done.stderr
        (session, transcript), = _transcripts(world).items()
        hooks = _hook_attachments(transcript)
        started = [h for h in hooks if h.get("hookEvent") == "SessionStart"]
        assert started and started[0]["exitCode"] == 0
        block = started[0]["content"]
        assert block.startswith(FENCE_OPEN) and block.rstrip().endswith(FENCE_CLOSE)
        assert "httpx" in block
        # The plugin's MCP server joined the running Cortex (Claude Code names the ones that
        # failed to connect).
        failed = [name for r in _records(transcript) if r.get("type") == "attachment"
                  for name in (f.get("name") for f in r["attachment"].get("failedMcpServers", []))]
        assert "plugin:cortex:cortex" not in failed

        facts = cortex.query(SESSION_FACTS.format(session=session))
        # Stored live, by the hooks (Claude Code writes the transcript after them).
        assert {"hook.SessionStart", "hook.UserPromptSubmit"} <= set(facts["events"])
        assert facts["ledger"] >= 1  # what SessionStart gave is in the session's ledger
        _cortex(world["cortex"], "ingest", "claude-code",
                str(world["home"] / ".claude" / "projects"))
        _cortex(world["cortex"], "analyze")
        after = cortex.query(SESSION_FACTS.format(session=session))
        # The transcript's records, Cortex's context among them, are read too.
        assert set(facts["events"]) < set(after["events"])
        assert {"user.prompt", "attachment.hook_success"} <= set(after["events"])
        made_of_context = [o for o in after["observations"]
                           if "httpx" in o or "requests" in o.casefold()]
        assert made_of_context == []
    finally:
        cortex.stop()

    # Cortex stopped: the hooks succeed with nothing for the model, nothing is left running.
    done = _run_claude(claude, world, "-p", PROMPT, cwd=world["project"])
    assert "Not logged in" in done.stdout + done.stderr
    (second,) = [p for stem, p in _transcripts(world).items() if stem != session]
    for hook in _hook_attachments(second):
        assert hook["type"] == "hook_success" and hook["exitCode"] == 0, hook
        assert hook["content"] == "" and hook["stderr"] == "", hook
    log = (world["cortex"] / "hooks" / "hook.log").read_text()
    assert f"Cortex does not answer at {cortex.url} (from the last cortex up, stopped" in log
    status = subprocess.run([CORTEX, "hook", "status"], env=_cortex_env(world["cortex"]),
                            capture_output=True, text=True, timeout=60).stdout
    assert "unreachable" in status, status
    deadline = time.monotonic() + 20
    while _ours(world["cortex"]) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _ours(world["cortex"]) == []

    _uninstalled_leaves_nothing(claude, world)
