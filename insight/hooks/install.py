"""`cortex hook install [--user | --project PATH] [--yes]`: hook entries in settings.json.

Shows the unified diff of `.claude/settings.json` first and applies it on confirmation
(or with --yes). Entries it wrote before are updated in place, never duplicated; other
hooks are left alone.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from insight.hooks.config import DEFAULT_SESSION_START_TOKENS, config_load, config_save
from insight.hooks.status import probe_line
from memory.file_edits import diff_apply, json_render

EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop")
HOOK_TIMEOUT_SECONDS = 10  # Claude Code's own kill switch; the hook returns well before


def default_command() -> str:
    """The fastest entry: this interpreter running the Django-free module."""
    return f"{shlex.quote(sys.executable)} -m insight.hooks"


def settings_path(*, user: bool, project: str | None) -> Path:
    if user:
        base = Path(os.environ.get("CLAUDE_CONFIG_DIR") or "~/.claude").expanduser()
        return base / "settings.json"
    return Path(project or ".").expanduser().resolve() / ".claude" / "settings.json"


def _is_ours(command: Any) -> bool:
    text = str(command or "")
    return "insight.hooks" in text or (" hook " in f"{text} " and "cortex" in text)


def settings_merge(settings: dict[str, Any], *, command: str) -> dict[str, Any]:
    merged = json.loads(json.dumps(settings))
    hooks = merged.setdefault("hooks", {})
    for event in EVENTS:
        wanted = f"{command} {event}"
        groups = hooks.setdefault(event, [])
        found = False
        for group in groups:
            for hook in group.get("hooks", []) if isinstance(group, dict) else []:
                if isinstance(hook, dict) and _is_ours(hook.get("command")):
                    hook.update(type="command", command=wanted, timeout=HOOK_TIMEOUT_SECONDS)
                    found = True
        if not found:
            group = {"hooks": [{"type": "command", "command": wanted,
                                "timeout": HOOK_TIMEOUT_SECONDS}]}
            if event == "PostToolUse":
                group = {"matcher": "*", **group}
            groups.append(group)
    return dict(merged)


def install_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="cortex hook install",
        description="Write Cortex's hook entries (SessionStart, UserPromptSubmit, PostToolUse, "
                    "Stop) into Claude Code's settings.json, the diff shown first; save the "
                    "URL and token under CORTEX_HOME/hooks/config.json (0600); then say in "
                    "one line whether Cortex answers and accepts the token.",
        epilog="example: cortex hook install --project ~/code/billing-api --token \"$TOKEN\" "
               "--yes   (with the Claude Code plugin, run `cortex setup claude-code` instead)",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="~/.claude/settings.json")
    where.add_argument("--project", metavar="PATH", help="PATH/.claude/settings.json (default .)")
    parser.add_argument("--yes", action="store_true", help="apply without asking")
    parser.add_argument("--url", help="Cortex URL (saved under CORTEX_HOME/hooks/config.json; "
                        "default: where the running `cortex up` listens)")
    parser.add_argument("--token", help="the token of an agent with events:write (saved, 0600)")
    parser.add_argument("--session-start-tokens", type=int, metavar="N",
                        help=f"what SessionStart may inject (default "
                             f"{DEFAULT_SESSION_START_TOKENS} tokens)")
    parser.add_argument("--command", default=None, help="the hook command prefix")
    args = parser.parse_args(argv)
    if args.session_start_tokens is not None and args.session_start_tokens <= 0:
        parser.error("--session-start-tokens must be a positive number of tokens")
    path = settings_path(user=args.user, project=args.project)
    before = path.read_text(encoding="utf-8") if path.exists() else ""
    try:
        current = json.loads(before) if before.strip() else {}
    except json.JSONDecodeError as error:
        print(f"{path} is not valid JSON ({error}); nothing changed.", file=sys.stderr)
        return 1
    after = json_render(settings_merge(current, command=args.command or default_command()))
    _save_connection(args.url, args.token or os.environ.get("CORTEX_TOKEN"),
                     args.session_start_tokens)
    print(probe_line(config_load()))
    if after == before:
        print(f"{path}: the Cortex hooks are already installed.")
        return 0
    return diff_apply(path=path, before=before, after=after, label="with Cortex hooks",
                      yes=args.yes)


def _save_connection(url: str | None, token: str | None, tokens: int | None) -> None:
    if url or token or tokens:
        saved = config_save(url=url, token=token, session_start_tokens=tokens)
        print(f"Cortex connection saved in {saved}" + (" (token not shown)." if token else "."))
    elif not config_load().token:
        print("No token given: `cortex setup claude-code` makes one and saves it (or create "
              "one with `cortex agent create claude-code-hooks --scopes "
              "events:write,context:read --source claude-code` and pass --token). Until then "
              "the hooks queue events locally.")
