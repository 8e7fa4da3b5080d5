"""`cortex hook mcp`: Cortex's MCP server as the Claude Code plugin starts it.

The plugin holds no token and no path: the token is the one `cortex setup claude-code` saved
under CORTEX_HOME, and the server joins the database of the `cortex up` that runs
(CORTEX_HOME/up.json). When Cortex is not running it starts nothing (an embedded database
started here could outlive a server Claude Code kills): it says so and exits.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from insight.hooks.config import config_load, cortex_home
from insight.hooks.files import log
from memory.runtime import runtime_alive, runtime_read


def cortex_executable() -> str:
    beside = Path(sys.executable).parent / "cortex"
    return str(beside) if beside.exists() else shutil.which("cortex") or "cortex"


def mcp_exec() -> int:
    """Replace this process with `cortex mcp`, or say in one line why not (exit 1)."""
    config = config_load()
    running = runtime_read(cortex_home())
    if not config.token:
        return _refuse("no token: run `cortex setup claude-code`")
    if running is None or not runtime_alive(running):
        return _refuse("Cortex is not running: start it with `cortex up` "
                       "(or keep it running with `cortex service install`)")
    env = {**os.environ, "CORTEX_TOKEN": config.token}
    for key, name in (("database_url", "DATABASE_URL"), ("redis_url", "REDIS_URL")):
        value = running.get(key)
        if isinstance(value, str) and value and not os.environ.get(name):
            env[name] = value
    command = cortex_executable()
    os.execve(command, [command, "mcp"], env)
    return 0  # not reached


def _refuse(reason: str) -> int:
    log(f"mcp: {reason}")
    print(f"cortex mcp: {reason}", file=sys.stderr)
    return 1


def launcher_link() -> Path:
    """CORTEX_HOME/claude-code/cortex -> this `cortex`: where the plugin's launcher finds it
    (the plugin names no path; CORTEX_HOME is the operator's)."""
    link = cortex_home() / "claude-code" / "cortex"
    link.parent.mkdir(parents=True, exist_ok=True)
    target = Path(cortex_executable()).resolve() if Path(cortex_executable()).exists() else None
    if target is None:
        raise FileNotFoundError("no `cortex` executable beside this Python or on PATH")
    tmp = link.with_name(f".cortex.{os.getpid()}")
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(target)
    os.replace(tmp, link)
    return link
