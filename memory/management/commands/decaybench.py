"""`cortex decaybench`: adapts memory.turns.bench (SPEC section 12) to the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.turns.base import InvalidParameter
from memory.turns.bench import BenchConfig, render_json, render_table, run


class Command(BaseCommand):
    help = ("The turn-based engine against a sliding window (the document's benchmark), "
            "then against stronger baselines at the same working-set budget. Deterministic: "
            "the same arguments print the same bytes.")
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        defaults = BenchConfig()
        parser.add_argument("--sessions", type=int, default=defaults.sessions)
        parser.add_argument("--turns", type=int, default=defaults.turns)
        parser.add_argument("--noise", type=int, default=defaults.noise,
                            help="noise items registered per turn")
        parser.add_argument("--seed", type=int, default=defaults.seed)
        parser.add_argument("--format", choices=["table", "json"], default="table")
        parser.add_argument("--plot", type=Path, metavar="PATH",
                            help="also write a PNG: retention over turns, recall vs budget")

    def handle(self, *args: Any, sessions: int, turns: int, noise: int, seed: int,
               format: str, plot: Path | None, **options: Any) -> None:
        try:
            config = BenchConfig(sessions=sessions, turns=turns, noise=noise, seed=seed)
        except InvalidParameter as error:
            raise CommandError(str(error)) from error
        rows = run(config)
        text = render_json(rows) if format == "json" else render_table(rows, config)
        self.stdout.write(text, ending="")
        if plot is not None:
            from memory.turns.plot import plot_write

            budget = next(row.budget for row in rows
                          if row.setting == "fair-document" and row.budget is not None)
            plot_write(config=config, path=plot, budget=budget)
            self.stderr.write(f"plot written to {plot}")
