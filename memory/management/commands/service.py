"""`python manage.py service ...`: the same as `cortex service ...` (which skips Django)."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from memory.service_unit import HELP, main


class Command(BaseCommand):
    help = HELP.split("\n\n")[0]

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("args", nargs="*")

    def run_from_argv(self, argv: list[str]) -> None:
        # Everything after `service` belongs to its own parser.
        sys.exit(main(argv[2:]))

    def handle(self, *args: Any, **options: Any) -> None:
        code = main(list(args))
        if code:
            sys.exit(code)
