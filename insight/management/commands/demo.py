"""`cortex demo`: generate the demo corpus, run it through the loop, print a short report."""

from __future__ import annotations

import io
from argparse import ArgumentParser
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from django.conf import settings
from rich.console import Console
from rich.table import Table
from rich.text import Text

from insight.demo.run import DemoReport, demo_run
from insight.management.progress import RichProgress
from memory.management.base import CortexCommand


def _table(title: str, columns: list[str], rows: Sequence[Sequence[Any]],
           caption: str = "") -> Table:
    # Text, not str: what came from the corpus is printed as it is, never read as markup.
    table = Table(title=title, title_justify="left",
                  caption=Text(caption) if caption else None, caption_justify="left")
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 else "right")
    if not rows:
        table.add_row("(none)", *[""] * (len(columns) - 1))
    for row in rows:
        table.add_row(*(Text(f"{v:.3f}" if isinstance(v, float) else str(v)) for v in row))
    return table


class Command(CortexCommand):
    help = ("Generate a demo corpus (Claude Code sessions and a git repository, dated so that "
            "its last session ended ten minutes ago), live it night by night through capture, "
            "analysis, retain and the sleep cycle, then report what each layer holds, a "
            "recall, a context block and the proposals detected.")
    examples = ("cortex demo", "cortex demo --out /tmp/cortex-demo --seed 11")

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--seed", type=int, default=7,
                            help="the generator's seed: the same seed, the same corpus "
                                 "(default: 7)")
        parser.add_argument("--out", type=Path, default=None,
                            help="where to write the corpus (default: CORTEX_HOME/demo); "
                                 "a second run into it keeps its dates and adds nothing")

    def handle(self, *args: Any, seed: int, out: Path | None, **options: Any) -> None:
        out = out or settings.CORTEX_HOME / "demo"
        console = Console(stderr=True)
        with RichProgress(console, enabled=console.is_terminal) as progress:
            report = demo_run(out=out, seed=seed, progress=progress)
        buffer = io.StringIO()
        printer = Console(file=buffer, width=100)
        for table in self._tables(report):
            printer.print(table)
        self.stdout.write(buffer.getvalue().rstrip("\n"))

    def _tables(self, report: DemoReport) -> list[Table]:
        sessions, git, graph = report.ingest.sessions, report.ingest.git, report.graph
        layers: list[list[Any]] = [
            ["Claude Code files / lines", f"{sessions.files} / {sessions.lines}"],
            ["raw events stored (claude-code)", sessions.events_stored],
            ["raw events stored (git)", git.events_stored if git else 0],
            ["duplicates skipped", sessions.duplicates + (git.duplicates if git else 0)],
            ["observations created", sum(report.analysis.observations_created.values())],
            ["observations retained", report.retain.processed],
            *[[f"graph: {name}", count] for name, count in graph.counts.items()],
            ["sleep cycle", f"{report.sleep_cycle.status} as of {report.as_of:%Y-%m-%d}"],
            ["nightly sleep cycles lived before", report.nights],
        ]
        return [
            _table("Cortex demo: counts per layer", ["", "count"], layers),
            _table("Observations by category", ["category", "created"],
                   sorted([k, v] for k, v in report.analysis.observations_created.items())),
            _table("Routes (schema_fit)", ["route", "observations"],
                   [[k, v] for k, v in graph.routes.items()]),
            _table("Entities per namespace", ["namespace", "entities", "quarantined"],
                   [[n["namespace"], n["entities"], n["quarantined"]]
                    for n in graph.namespaces]),
            _table(f"Strongest entities as of {report.as_of:%Y-%m-%d}",
                   ["key", "strength", "mentions"],
                   [[e["key"], "pinned" if e["pinned"] else e["strength"], e["mentions"]]
                    for e in graph.strongest]),
            _table("Quarantined (dark matter, for review)", ["key", ""],
                   [[e["key"], e["name"]] for e in graph.quarantined]),
            _table("Open conflicts", ["entity", "existing claim", "new claim"],
                   [[c["entity"], c["existing"], c["new"]] for c in graph.conflicts]),
            *[_table(s.title, s.columns, s.rows, caption="\n".join(s.notes))
              for s in report.sections],
        ]
