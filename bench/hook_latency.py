"""How long a Claude Code hook holds the agent: the plugin's own command,
`plugin/bin/cortex-launch hook PostToolUse` (sh, then the `cortex` script beside this Python).

    python bench/hook_latency.py [--runs 20]

Three cases, each with a transcript that gained a few lines since the last call: Cortex
down (connection refused), Cortex hanging (accepts, never answers: the request timeout
and the hook's budget bound it), and nothing new. Target: well under a second, always.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import machine_describe  # noqa: E402
from insight.producers.claude_code_records import user_kind  # noqa: E402

LAUNCHER = ROOT / "plugin" / "bin" / "cortex-launch"
FIXTURES = ROOT.parent / "shared" / "fixtures" / "claude-code"
SESSION = "0b7c1e7e-2f53-4d5e-9a55-3f8f4a1c2d10"


def _record(i: int) -> bytes:
    return json.dumps({
        "type": "user", "uuid": f"bench-{i}", "sessionId": SESSION, "cwd": "/home/op/shop",
        "timestamp": "2026-04-01T10:00:00.000Z", "parentUuid": None,
        "message": {"role": "user", "content": "run the tests " * 20},
    }).encode() + b"\n"


def _installed(env: dict[str, str]) -> dict[str, str]:
    """The hook's environment as an installed Cortex runs: `cortex` on the PATH (this
    Python's, where the plugin's launcher finds it); its modules' bytecode compiled once (pip
    does so at install), not on every call as under PYTHONDONTWRITEBYTECODE, kept out of the
    checkout in a cache directory of its own."""
    cache = Path(tempfile.gettempdir()) / "cortex-bench-pycache"
    kept = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    path = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return {**kept, "PYTHONPYCACHEPREFIX": str(cache), "PATH": path}


def hook_timed(event: str, hook_input: dict[str, object],
               env: dict[str, str]) -> tuple[float, bytes]:
    """One hook call as Claude Code makes it, through the plugin's launcher: wall seconds,
    stdout."""
    payload = json.dumps({**hook_input, "hook_event_name": event}).encode()
    started = time.perf_counter()
    done = subprocess.run([str(LAUNCHER), "hook", event], input=payload, env=_installed(env),
                          check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - started, done.stdout


def _text(message: object) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        content = "".join(part.get("text", "") for part in content
                          if isinstance(part, dict) and part.get("type") == "text")
    return content.strip() if isinstance(content, str) else ""


def fixture_prompts(root: Path = FIXTURES) -> list[str]:
    """The prompts operators typed in the public Claude Code transcripts (read from
    ../shared, never copied; none when it is absent), in file order."""
    prompts: dict[str, None] = {}
    for path in sorted(root.rglob("*.jsonl")):
        for line in path.read_text(errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if (isinstance(record, dict) and record.get("type") == "user"
                    and user_kind(record) == "prompt"):
                prompts.setdefault(_text(record.get("message")), None)
    return list(prompts)


def _time_hook(transcript: Path, env: dict[str, str]) -> float:
    hook_input: dict[str, object] = {"session_id": SESSION, "transcript_path": str(transcript)}
    return hook_timed("PostToolUse", hook_input, env)[0]


def _case(name: str, url: str, runs: int, new_lines: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home, transcript = Path(tmp) / "home", Path(tmp) / "projects" / "-x" / f"{SESSION}.jsonl"
        transcript.parent.mkdir(parents=True)
        transcript.write_bytes(b"")
        env = {**os.environ, "CORTEX_HOME": str(home), "CORTEX_URL": url,
               "CORTEX_TOKEN": "bench"}
        times = []
        for run in range(runs):
            with transcript.open("ab") as fh:
                for i in range(new_lines):
                    fh.write(_record(run * 1000 + i))
            times.append(_time_hook(transcript, env))
        print(f"  {name}: p50 {statistics.median(times) * 1000:.0f} ms, "
              f"max {max(times) * 1000:.0f} ms over {runs} runs", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    print(machine_describe())
    refused = socket.socket()
    refused.bind(("127.0.0.1", 0))
    refused_port = refused.getsockname()[1]
    refused.close()
    hanging = socket.socket()
    hanging.bind(("127.0.0.1", 0))
    hanging.listen(100)  # accepts connections in the backlog, never answers
    print("hook wall time (interpreter start included):")
    _case("Cortex down, 10 new lines", f"http://127.0.0.1:{refused_port}", args.runs, 10)
    _case("Cortex hanging, 10 new lines",
          f"http://127.0.0.1:{hanging.getsockname()[1]}", max(args.runs // 4, 3), 10)
    _case("nothing new", f"http://127.0.0.1:{refused_port}", args.runs, 0)
    hanging.close()


if __name__ == "__main__":
    main()
