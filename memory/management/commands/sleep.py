"""`cortex sleep [--now ISO]` (alias `cortex consolidate`): the sleep cycle, now or as if at
that time."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.management.base import CommandError, CommandParser

from memory.management.base import DomainCommand, instant
from memory.services.sleep_cycle import sleep_cycle_run


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
        parser.add_argument("--now", type=instant,
                            help="evaluate as if at this ISO 8601 time (default: now)")

    def handle(self, *args: Any, now: datetime | None, **options: Any) -> None:
        run = sleep_cycle_run(now=now, trigger="command")
        self.stdout.write(f"run {run.pk} as of {run.as_of.isoformat()}: {run.status} "
                          f"in {run.duration_ms} ms")
        for step in run.steps:
            counts = ", ".join(f"{k} {v}" for k, v in step["counts"].items())
            error = f"  ERROR {step['error']}" if step["error"] else ""
            self.stdout.write(f"  {step['name']:<12} {step['duration_ms']:>7} ms  {counts}{error}")
        if run.status != "succeeded":
            raise CommandError(f"the sleep cycle failed: {run.error}")
