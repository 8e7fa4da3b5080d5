"""`cortex hook <Event> | install | flush | status | mcp`: the entry Claude Code's hooks call."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from insight.hooks.config import config_load
from insight.hooks.context import context_ask

# After this, whatever is left waits in the spool for the next call.
BUDGET_SECONDS = float(os.environ.get("CORTEX_HOOK_BUDGET") or 0.6)
EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop")
USAGE = ("usage: cortex hook <SessionStart|UserPromptSubmit|PostToolUse|Stop> | install | "
         "flush | status | mcp   (cortex hook --help says more)")
HELP = """\
cortex hook: Claude Code's hooks for Cortex.

Each call reads what the session's transcript gained since the last call and posts it to
Cortex (queued under CORTEX_HOME/hooks/spool while Cortex cannot be reached); SessionStart
and UserPromptSubmit also print Cortex's context block for the model. A hook always exits 0
and prints nothing but that block: when Cortex cannot be reached it prints nothing and
writes one line to CORTEX_HOME/hooks/hook.log.

Commands:
  cortex hook SessionStart|UserPromptSubmit|PostToolUse|Stop
                        what Claude Code runs (the hook's JSON on standard input)
  cortex hook install [--user | --project PATH] [--url URL] [--token T]
                      [--session-start-tokens N] [--yes]
                        write the hook entries into Claude Code's settings.json (the diff
                        is shown first), save the URL and token, check Cortex answers
                        (with the plugin, `cortex setup claude-code` does this instead)
  cortex hook flush     send what waits in the spool now
  cortex hook status    the last hook's outcome, what waits, where the log is
  cortex hook mcp       Cortex's MCP server as the Claude Code plugin starts it

Where Cortex is: CORTEX_URL, else the URL saved by `install --url`, else where the running
`cortex up` of this CORTEX_HOME listens (CORTEX_HOME/up.json), else http://127.0.0.1:8000.
The token: CORTEX_TOKEN, else the one saved under CORTEX_HOME/hooks/config.json (0600).

Example:
  cortex hook install --project ~/code/billing-api --token "$TOKEN" --yes
"""


def main(argv: list[str]) -> int:
    if not argv:
        print(USAGE, file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    if command in ("-h", "--help", "help"):
        sys.stdout.write(HELP)
        return 0
    if command == "install":
        # Lazy: the hook path stays lean (it has a budget of BUDGET_SECONDS per call).
        from insight.hooks.install import install_main

        return install_main(rest)
    if command == "flush":
        return _flush()
    if command == "status":
        return _status()
    if command == "mcp":
        from insight.hooks.launch import mcp_exec

        return mcp_exec()
    if command not in EVENTS and command.startswith("-"):
        print(f"cortex hook: unknown option {command}\n{USAGE}", file=sys.stderr)
        return 2
    return hook_run(command)


def _flush() -> int:
    from insight.hooks.spool import spool_flush

    config = config_load()
    result = spool_flush(config, deadline=time.monotonic() + 60)
    print(f"sent {result.sent}, set aside {result.quarantined}, "
          f"{result.left} segment(s) still waiting (Cortex: {config.url}, "
          f"from {config.url_from})")
    return 0 if result.reached else 1


def _status() -> int:
    from insight.hooks.capture import waiting_dir
    from insight.hooks.spool import spool_segments
    from insight.hooks.status import status_lines

    waiting = len(list(waiting_dir().glob("*.json"))) if waiting_dir().is_dir() else 0
    for line in status_lines(waiting_segments=len(spool_segments()), waiting_sessions=waiting):
        print(line)
    return 0


def hook_run(event: str) -> int:
    """Never raises, never fails the session: exit code 0 whatever happens."""
    started = time.monotonic()
    deadline = started + BUDGET_SECONDS
    try:
        hook_input = _read_input()
        config = config_load()
        # The context request first: Cortex assembles it while this process imports and
        # runs the capture (tens of milliseconds of a prompt's budget), then it is read.
        asked = context_ask(event, hook_input, config, deadline=deadline)
        from insight.hooks.capture import capture
        from insight.hooks.context import reply_text
        from insight.hooks.files import log
        from insight.hooks.spool import spool_flush
        from insight.hooks.status import outcome_of, status_save

        spooled = capture(hook_input, config, event=event)
        result = spool_flush(config, deadline=deadline)
        reply = asked.reply() if asked is not None else None
        block = reply_text(reply)
        if block:
            sys.stdout.write(block)
        outcome = outcome_of(config, reply=reply, flush=result)
        status_save(event, outcome, spooled=spooled, flush=result, context_chars=len(block),
                    started=started)
        if outcome.problem:
            log(f"{event}: {outcome.says}; spooled {spooled}, {result.left} segment(s) "
                "waiting")
        elif spooled or result.sent or result.left:
            log(f"{event}: spooled {spooled}, sent {result.sent}, waiting {result.left} "
                f"segment(s) in {time.monotonic() - started:.3f}s")
    except Exception as error:  # noqa: BLE001 - a hook must never break the session
        from insight.hooks.files import log

        log(f"{event}: {type(error).__name__}: {str(error)[:200]}")
    return 0


def _read_input() -> dict[str, Any]:
    if sys.stdin is None or sys.stdin.isatty():
        return {}
    data = sys.stdin.buffer.read()
    try:  # the standard library's: orjson is imported after the context request is sent
        value = json.loads(data) if data.strip() else {}
    except ValueError:  # not JSON, not UTF-8
        return {}
    return value if isinstance(value, dict) else {}
