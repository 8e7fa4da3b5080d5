"""`cortex mcp install`: the `cortex` server entry in an MCP client's config file (Claude
Code: `~/.claude.json` or a project's `.mcp.json`; Claude Desktop:
`claude_desktop_config.json`), the diff shown first, the rest of the file kept."""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory.file_edits import diff_apply, json_render

SERVER_NAME = "cortex"
PASSED_ON = ("CORTEX_HOME", "DATABASE_URL")


@dataclass(frozen=True)
class Target:
    path: Path
    shared: bool  # a project file others may read: secrets as ${VAR}, never their value
    typed: bool  # Claude Code's entries carry "type": "stdio"


def target_for(*, client: str, project: str | None) -> Target:
    home = Path.home()
    if client == "claude-desktop":
        base = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
        if sys.platform == "darwin":
            base = home / "Library" / "Application Support"
        return Target(base / "Claude" / "claude_desktop_config.json", shared=False, typed=False)
    if project is not None:
        return Target(Path(project).expanduser().resolve() / ".mcp.json", shared=True,
                      typed=True)
    return Target(home / ".claude.json", shared=False, typed=True)


def cortex_command() -> str:
    beside = Path(sys.executable).parent / "cortex"
    return str(beside) if beside.exists() else shutil.which("cortex") or "cortex"


def server_entry(*, target: Target, token: str | None, command: str) -> dict[str, Any]:
    env: dict[str, str] = {}
    for name, value in (("CORTEX_TOKEN", token), *((n, os.environ.get(n)) for n in PASSED_ON)):
        if target.shared and (value or name == "CORTEX_TOKEN"):
            env[name] = f"${{{name}}}"
        elif value:
            env[name] = value
    entry: dict[str, Any] = {"type": "stdio"} if target.typed else {}
    entry.update(command=command, args=["mcp"], env=env)
    return entry


def config_merge(config: dict[str, Any], *, entry: dict[str, Any]) -> dict[str, Any]:
    merged = dict(config)
    servers = merged.get("mcpServers")
    merged["mcpServers"] = {**(servers if isinstance(servers, dict) else {}),
                            SERVER_NAME: entry}
    return merged


def install_run(*, client: str, project: str | None, token: str | None, yes: bool,
                command: str | None = None) -> int:
    target = target_for(client=client, project=project)
    before = target.path.read_text(encoding="utf-8") if target.path.exists() else ""
    try:
        current = json.loads(before) if before.strip() else {}
    except json.JSONDecodeError as error:
        print(f"{target.path} is not valid JSON ({error}); nothing changed.", file=sys.stderr)
        return 1
    if not isinstance(current, dict):
        print(f"{target.path} is not a JSON object; nothing changed.", file=sys.stderr)
        return 1
    entry = server_entry(target=target, token=token, command=command or cortex_command())
    after = json_render(config_merge(current, entry=entry))
    if after == before:
        print(f"{target.path}: the Cortex MCP server is already installed.")
        return 0
    if not token:
        print("No token: the server will read CORTEX_TOKEN from its environment. Create one "
              "with\n  cortex agent create claude --scopes "
              "memories:write,recall:read,context:read,feedback:write,working-set")
    return diff_apply(path=target.path, before=before, after=after,
                      label="with the Cortex MCP server", yes=yes)
