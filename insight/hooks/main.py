"""`cortex hook <Event> | install | flush | status`: the entry Claude Code's hooks call."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from insight.hooks.config import config_load
from insight.hooks.context import context_ask, context_text

# After this, whatever is left waits in the spool for the next call.
BUDGET_SECONDS = float(os.environ.get("CORTEX_HOOK_BUDGET") or 0.6)
USAGE = "usage: cortex hook <SessionStart|UserPromptSubmit|PostToolUse|Stop> | install | flush"


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "install":
        # Lazy: the hook path stays lean (it has a budget of BUDGET_SECONDS per call).
        from insight.hooks.install import install_main

        return install_main(rest)
    if command == "flush":
        from insight.hooks.spool import spool_flush

        result = spool_flush(config_load(), deadline=time.monotonic() + 60)
        print(f"sent {result.sent}, set aside {result.quarantined}, "
              f"{result.left} segment(s) still waiting")
        return 0 if result.reached else 1
    if command == "status":
        from insight.hooks.spool import spool_segments

        print(f"{len(spool_segments())} segment(s) waiting in the spool")
        return 0
    return hook_run(command)


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
        from insight.hooks.files import log
        from insight.hooks.spool import spool_flush

        spooled = capture(hook_input, config)
        result = spool_flush(config, deadline=deadline)
        block = context_text(asked)
        if block:
            sys.stdout.write(block)
        if spooled or result.sent or result.left:
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
