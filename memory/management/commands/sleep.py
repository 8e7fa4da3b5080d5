"""`cortex sleep [--now ISO]` (alias `cortex consolidate`): the sleep cycle, now or as if at
that time."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils import timezone

from memory.management.base import DomainCommand
from memory.services.sleep_cycle import sleep_cycle_run


def parse_instant(value: str) -> datetime:
    """An ISO 8601 instant; without an offset, in the configured time zone."""
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--now: {value!r} is not an ISO 8601 date or time") from None
    return parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed)


class Command(DomainCommand):
    help = ("Run the sleep cycle now (beat runs it nightly): re-evaluate every strength and "
            "weight, record what crossed its threshold, write compiled truths, run the "
            "detectors.")
    examples = ("cortex sleep", "cortex sleep --now 2026-06-01T03:00")
    # The system checks import the URLconf (the API, the admin, the MCP server), which the
    # sleep cycle never uses: a third of the command's own CPU after a first import;
    # `cortex check` runs them.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--now", help="evaluate as if at this ISO 8601 time (default: now)")

    def handle(self, *args: Any, now: str | None, **options: Any) -> None:
        as_of = parse_instant(now) if now else None
        run = sleep_cycle_run(now=as_of, trigger="command")
        self.stdout.write(f"run {run.pk} as of {run.as_of.isoformat()}: {run.status} "
                          f"in {run.duration_ms} ms")
        for step in run.steps:
            counts = ", ".join(f"{k} {v}" for k, v in step["counts"].items())
            error = f"  ERROR {step['error']}" if step["error"] else ""
            self.stdout.write(f"  {step['name']:<12} {step['duration_ms']:>7} ms  {counts}{error}")
        if run.status != "succeeded":
            raise CommandError(f"the sleep cycle failed: {run.error}")
