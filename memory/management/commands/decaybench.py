"""`python manage.py decaybench`: adapts memory.working_set.cli (docs/decaybench.md) to Django."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandParser

from memory.management.base import DomainCommand
from memory.working_set import cli


class Command(DomainCommand):
    help = cli.DESCRIPTION
    examples = ("cortex decaybench", "cortex decaybench --seed 7 --format json",
                "cortex decaybench --plot docs/decaybench.png")
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        cli.add_arguments(parser)

    def handle(self, *args: Any, sessions: int, turns: int, noise: int, seed: int,
               format: str, plot: Path | None, **options: Any) -> None:
        cli.execute(sessions=sessions, turns=turns, noise=noise, seed=seed, format=format,
                    plot=plot, stdout=self.stdout, stderr=self.stderr)  # type: ignore[arg-type]
