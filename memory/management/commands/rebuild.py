"""`cortex rebuild graph [--yes] [--digest]`: replay the raw log into Layers 2 and 3.

`graph` clears everything derived (never the raw event log), analyzes the log again in
commit order and retains what it observes; it prints what it did and the graph's canonical
digest. `graph --digest` only prints the digest of the graph as it is (compare it with the
digest a rebuild prints: the incremental path and the replay must agree).

`cortex rebuild compiled KEY` writes a new compiled-truth version of one entity now, from
the graph and the raw log (a faded entity's too: resurrection), and its file;
`cortex rebuild compiled --all` does it for every entity not merged away."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from memory.management.base import DomainCommand, subcommand_add
from memory.selectors.graph import graph_digest, graph_summary
from memory.services.compiled_files import compiled_file_path
from memory.services.compiled_truth import compiled_truth_rebuild, compiled_truth_rebuild_all
from memory.services.rebuild import graph_rebuild


class Command(DomainCommand):
    help = ("Rebuild what is derived from the raw event log: the graph (analyzed and retained "
            "again, the recorded decisions replayed), or compiled truths now.")
    examples = ("cortex rebuild graph --yes", "cortex rebuild graph --digest",
                "cortex rebuild compiled world:person:anya-kowalski",
                "cortex rebuild compiled --all")

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="what", required=True, metavar="WHAT")
        graph = subcommand_add(
            sub, "graph", help="Clear Layers 2 and 3 and rebuild them from the raw log alone "
                               "(never the log itself); print what it did and the digest.",
            examples=("cortex rebuild graph --yes", "cortex rebuild graph --digest"))
        graph.add_argument("--yes", action="store_true", help="do not ask for confirmation")
        graph.add_argument("--digest", action="store_true",
                           help="print the current graph's digest and change nothing")
        compiled = subcommand_add(
            sub, "compiled", help="Write a new compiled-truth version now (a faded entity's "
                                  "too), and its file.",
            examples=("cortex rebuild compiled world:person:anya-kowalski",
                      "cortex rebuild compiled --all"))
        compiled.add_argument("key", nargs="?", help="the entity's key")
        compiled.add_argument("--all", action="store_true", help="every entity not merged")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["what"] == "compiled":
            self._compiled(key=options["key"], every=options["all"])
            return
        if options["digest"]:
            self.stdout.write(graph_digest())
            return
        if not options["yes"] and not self._confirmed():
            raise CommandError("cancelled")
        report = graph_rebuild()
        produced = ", ".join(f"{k} {v}" for k, v in report.produced.items()) or "none"
        self.stdout.write(f"cleared: {report.observations_deleted} derived observation(s); "
                          f"{report.observations_kept} posted directly kept")
        self.stdout.write(f"observations produced again: {produced}")
        statuses = report.retain.chunks.statuses
        self.stdout.write(f"retained {report.retain.processed}: "
                          + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
        decisions = report.decisions
        self.stdout.write("decisions replayed: " + (", ".join(
            f"{k} {v}" for k, v in sorted(decisions.applied.items())) or "none")
            + f"; skipped {len(decisions.skipped)}")
        for line in decisions.skipped:
            self.stdout.write(f"  skipped {line}")
        summary = graph_summary()
        self.stdout.write("routes: " + ", ".join(f"{k} {v}" for k, v in summary.routes.items()))
        self.stdout.write("graph: " + ", ".join(f"{k} {v}" for k, v in summary.counts.items()))
        self.stdout.write(f"digest {report.digest}")

    def _compiled(self, *, key: str | None, every: bool) -> None:
        if every == bool(key):
            raise CommandError("give an entity's KEY or --all (not both)")
        if key:
            version = compiled_truth_rebuild(key=key)
            entity = version.entity
            path = compiled_file_path(namespace=entity.namespace.path, slug=entity.slug)
            self.stdout.write(f"{entity.key}: version {version.version} -> {path}")
            return
        report = compiled_truth_rebuild_all()
        self.stdout.write(f"compiled {report.written} of {report.evaluated} entities; "
                          f"{report.files} file(s) written")

    def _confirmed(self) -> bool:
        answer = input("This clears every entity, relation, fact and review, and rebuilds them "
                       "from the raw log. Continue? [y/N] ")
        return answer.strip().lower() in {"y", "yes"}
