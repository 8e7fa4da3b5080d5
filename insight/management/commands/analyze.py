"""`cortex analyze [--all]`: run the analyzers now, synchronously, until no event is left."""

from __future__ import annotations

import io
from argparse import ArgumentParser
from typing import Any

import orjson
from django.core.management.base import BaseCommand, CommandError
from rich.console import Console
from rich.table import Table

from insight.analyzers import ANALYZERS
from insight.services.analysis import analysis_drain


class Command(BaseCommand):
    help = "Turn the events not analyzed yet into observations (all analyzers, all sources)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--all", action="store_true",
                            help="start over from the first event (creates nothing twice)")
        parser.add_argument("--analyzer", action="append", choices=sorted(ANALYZERS),
                            help="only this analyzer (repeatable)")
        parser.add_argument("--source", action="append", help="only this source (repeatable)")
        parser.add_argument("--batch-size", type=int,
                            help="events per batch (default: analysis.batch_size in the config)")
        parser.add_argument("--json", action="store_true", help="print the summary as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["batch_size"] is not None and options["batch_size"] < 1:
            raise CommandError("--batch-size must be at least 1")
        totals = analysis_drain(sources=options["source"], analyzers=options["analyzer"],
                                restart=options["all"], batch_size=options["batch_size"])
        summary = totals.as_dict()
        self.stdout.write(orjson.dumps(summary).decode() if options["json"]
                          else self._table(summary))

    def _table(self, summary: dict[str, Any]) -> str:
        table = Table(title="Analysis")
        for column in ("analyzer", "events read", "observations created"):
            table.add_column(column, justify="left" if column == "analyzer" else "right")
        for name in sorted(summary["analyzed"]):
            table.add_row(name, str(summary["analyzed"][name]),
                          str(summary["observations_created"].get(name, 0)))
        buffer = io.StringIO()
        Console(file=buffer, width=80).print(table)
        if summary["rejected"]:
            buffer.write(f"{summary['rejected']} draft(s) rejected (see the log)\n")
        if summary["held_back"]:
            buffer.write(f"events of {', '.join(summary['held_back'])} wait behind a transaction "
                         "still open in the database; run `cortex analyze` again once it ends\n")
        return buffer.getvalue().rstrip("\n")
