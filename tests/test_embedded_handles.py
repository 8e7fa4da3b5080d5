"""The embedded servers' handle files (the pids of the processes using a server, the last to
exit stops it): a file a killed process left torn, or listing processes gone, never stops a
command; every command leaves a whole file behind."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CORTEX = shutil.which("cortex") or str(Path(sys.executable).parent / "cortex")
HANDLES = ("pgdata/.handle_pids.json", "redis/.handle_pids.json")


def _recall(home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"DATABASE_URL", "REDIS_URL", "XDG_RUNTIME_DIR"}}
    env["CORTEX_HOME"] = str(home)
    return subprocess.run([CORTEX, "recall", "anything", "--json"], env=env,
                          capture_output=True, text=True, timeout=300)


def _gone_pid() -> int:
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


@pytest.mark.parametrize("left", ["", "[12, ", "{}", None])
def test_a_torn_or_stale_handle_file_never_stops_a_command(tmp_path: Path,
                                                          left: str | None) -> None:
    home = tmp_path / "home"
    assert _recall(home).returncode == 0  # prepares the home; its servers stop at the end
    for handles in HANDLES:
        (home / handles).write_text(json.dumps([_gone_pid()]) if left is None else left)
    done = _recall(home)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    for handles in HANDLES:
        assert json.loads((home / handles).read_text()) == []
