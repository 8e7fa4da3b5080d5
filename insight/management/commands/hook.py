"""`python manage.py hook ...`: the same as `cortex hook ...` (which skips Django entirely)."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from insight.hooks.main import main


class Command(BaseCommand):
    help = "Claude Code hooks: <SessionStart|UserPromptSubmit|PostToolUse|Stop>, install, flush."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("args", nargs="*")

    def run_from_argv(self, argv: list[str]) -> None:
        # Everything after `hook` belongs to the hook's own parser (install has options).
        sys.exit(main(argv[2:]))

    def handle(self, *args: Any, **options: Any) -> None:
        code = main(list(args))
        if code:
            sys.exit(code)
