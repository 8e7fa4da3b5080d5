"""`cortex rebuild graph [--yes] [--digest]`: replay the raw log into Layers 2 and 3.

`graph` clears everything derived (never the raw event log), analyzes the log again in
commit order and retains what it observes; it prints what it did and the graph's canonical
digest. `graph --digest` only prints the digest of the graph as it is (compare it with the
digest a rebuild prints: the incremental path and the replay must agree)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.selectors.graph import graph_digest, graph_summary
from memory.services.locks import RetainBusy
from memory.services.rebuild import graph_rebuild


class Command(BaseCommand):
    help = "Rebuild derived state from the raw event log."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="what", required=True)
        graph = sub.add_parser("graph", help="Layers 2 and 3 from the raw log alone")
        graph.add_argument("--yes", action="store_true", help="do not ask for confirmation")
        graph.add_argument("--digest", action="store_true",
                           help="print the current graph's digest and change nothing")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["digest"]:
            self.stdout.write(graph_digest())
            return
        if not options["yes"] and not self._confirmed():
            raise CommandError("cancelled")
        try:
            report = graph_rebuild()
        except RetainBusy as exc:
            raise CommandError(str(exc)) from None
        produced = ", ".join(f"{k} {v}" for k, v in report.produced.items()) or "none"
        self.stdout.write(f"cleared: {report.observations_deleted} derived observation(s); "
                          f"{report.observations_kept} posted directly kept")
        self.stdout.write(f"observations produced again: {produced}")
        statuses = report.retain.chunks.statuses
        self.stdout.write(f"retained {report.retain.processed}: "
                          + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
        summary = graph_summary()
        self.stdout.write("routes: " + ", ".join(f"{k} {v}" for k, v in summary.routes.items()))
        self.stdout.write("graph: " + ", ".join(f"{k} {v}" for k, v in summary.counts.items()))
        self.stdout.write(f"digest {report.digest}")

    def _confirmed(self) -> bool:
        answer = input("This clears every entity, relation, fact and review, and rebuilds them "
                       "from the raw log. Continue? [y/N] ")
        return answer.strip().lower() in {"y", "yes"}
