"""The real Claude Code client, from npm at a pinned version, in a folder of its own.

`.ci/run` installs it before the tests (CORTEX_CLAUDE_CODE_DIR); run alone, the test installs
it into the same cache folder. The test skips, saying why, only when npm cannot install it
(no npm, or the registry unreachable)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

PACKAGE = "@anthropic-ai/claude-code"
VERSION = "2.1.328"  # the client these tests were written against (issue 26)


def client_dir() -> Path:
    default = Path(tempfile.gettempdir()) / f"cortex-claude-code-{VERSION}"
    return Path(os.environ.get("CORTEX_CLAUDE_CODE_DIR") or default)


def _installed(binary: Path) -> bool:
    if not binary.exists():
        return False
    done = subprocess.run([str(binary), "--version"], capture_output=True, text=True,
                          timeout=60, env=client_env(Path(tempfile.gettempdir())))
    return done.returncode == 0 and done.stdout.startswith(VERSION)


def claude_binary() -> Path:
    """The `claude` executable, installed first when it is not; skips when npm cannot."""
    folder = client_dir()
    binary = folder / "node_modules" / ".bin" / "claude"
    if _installed(binary):
        return binary
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: cannot install the Claude Code client")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund",
                           f"{PACKAGE}@{VERSION}"], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["?"])[-1]
        pytest.skip(f"npm could not install {PACKAGE}@{VERSION} (registry unreachable?): "
                    f"{reason}")
    assert _installed(binary), f"{binary} does not run after npm installed it"
    return binary


def client_env(home: Path, **extra: str) -> dict[str, str]:
    """The client's environment: a HOME of its own, no credentials, no cortex on PATH (the
    plugin must find it under CORTEX_HOME), no update check."""
    node = shutil.which("node")
    path = os.pathsep.join(dict.fromkeys([os.path.dirname(node) if node else "/usr/bin",
                                          "/usr/bin", "/bin"]))
    keep = {k: v for k, v in os.environ.items()
            if k in ("LANG", "LC_ALL", "TZ", "TMPDIR", "SYSTEMROOT")}
    return {**keep, "HOME": str(home), "PATH": path, "DISABLE_AUTOUPDATER": "1", **extra}
