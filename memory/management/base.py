"""The base of Cortex's commands.

`CortexCommand`: its `--help` says what the command does (`help`), its options (each with a
help text) and examples (`examples`), without Django's own options (`--settings`,
`--pythonpath`, `--skip-checks`, ...: still accepted, never shown; they mean nothing to a
Cortex operator). `subcommand_add` gives a subcommand the same help of its own
(`cortex mcp install --help`).

`DomainCommand`: a refusal of the services (memory.errors.DomainError) is shown as a
CommandError (one line on stderr, exit status 1), in this one place."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.core.management.base import (
    BaseCommand,
    CommandError,
    CommandParser,
    DjangoHelpFormatter,
)
from django.utils import timezone

from memory.errors import DomainError


def instant(value: str) -> datetime:
    """An option's ISO 8601 instant (an argparse type: a bad one is the option's usage error,
    named by argparse); without an offset, in the configured time zone."""
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an ISO 8601 date or time") from None
    return parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed)


# Django's options on every command (django.core.management.base.BaseCommand.create_parser).
DJANGO_OPTIONS = frozenset({"--version", "--verbosity", "--settings", "--pythonpath",
                            "--traceback", "--no-color", "--force-color", "--skip-checks"})


EXAMPLES_HEADING = "examples:\n"
# What `cortex recall` and `cortex context` add when they find nothing while something
# recorded waits to be consolidated (memory/services/backlog.py).
NOT_CONSOLIDATED = ("some of what was recorded is not consolidated (the workers of `cortex up` "
                    "do it as it comes; without them, `cortex analyze` then `cortex retain`)")


class CortexHelpFormatter(DjangoHelpFormatter):
    """Django's order (the command's own options first); the description wrapped, the
    examples' lines as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith(EXAMPLES_HEADING):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def examples_text(examples: Sequence[str]) -> str | None:
    if not examples:
        return None
    return EXAMPLES_HEADING + "\n".join(f"  {line}" for line in examples)


class CortexCommand(BaseCommand):
    suppressed_base_arguments = set(DJANGO_OPTIONS)
    # Full command lines, e.g. "cortex recall migrations --project billing-api".
    examples: Sequence[str] = ()

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        kwargs.setdefault("formatter_class", CortexHelpFormatter)
        kwargs.setdefault("epilog", examples_text(self.examples))
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        for action in parser._actions:  # Django adds --skip-checks past its own suppression
            if DJANGO_OPTIONS & set(action.option_strings):
                action.help = argparse.SUPPRESS
        return parser


def subcommand_add(actions: Any, name: str, *, help: str,
                   examples: Sequence[str] = ()) -> CommandParser:
    """A subcommand whose own --help says what it does (`help`), its options and examples."""
    parser: CommandParser = actions.add_parser(
        name, help=help, description=help, epilog=examples_text(examples),
        formatter_class=CortexHelpFormatter)
    return parser


class DomainCommand(CortexCommand):
    def execute(self, *args: Any, **options: Any) -> str | None:
        try:
            return super().execute(*args, **options)
        except DomainError as error:
            raise CommandError(error.describe()) from error
