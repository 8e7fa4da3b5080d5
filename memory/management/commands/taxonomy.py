"""`cortex taxonomy sync` (the tree from config/decay.yaml) and `cortex taxonomy show`."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from memory.management.base import CortexCommand, subcommand_add
from memory.models import Namespace
from memory.services.taxonomy import taxonomy_sync


class Command(CortexCommand):
    help = "The namespace tree: sync it from config/decay.yaml, or show it."
    examples = ("cortex taxonomy sync", "cortex taxonomy show")

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        subcommand_add(actions, "sync", help="Create and update the namespaces from the config "
                                             "(idempotent; nodes it drops are kept).",
                       examples=("cortex taxonomy sync",))
        subcommand_add(actions, "show", help="Print the namespace tree with each node's "
                                             "defaults.", examples=("cortex taxonomy show",))

    def handle(self, *args: Any, action: str, **options: Any) -> None:
        if action == "sync":
            self._sync(verbosity=options["verbosity"])
        else:
            self._show()

    def _sync(self, *, verbosity: int) -> None:
        report = taxonomy_sync()
        if verbosity == 0:
            return
        self.stdout.write(
            f"taxonomy: {len(report.created)} created, {len(report.updated)} updated, "
            f"{len(report.retired)} no longer in the config (kept), "
            f"{report.entities_rescheduled} entities moved to a new default half-life, "
            f"{report.relations_reclassified} relations reclassified"
        )
        if verbosity > 1:
            for label, paths in (("created", report.created), ("updated", report.updated),
                                 ("retired", report.retired)):
                for path in paths:
                    self.stdout.write(f"  {label}: {path}")

    def _show(self) -> None:
        for node in Namespace.objects.order_by("tree_id", "lft"):
            flags = "" if node.in_config else "  (not in the config)"
            pinned = " pinned" if node.pinned else ""
            self.stdout.write(
                f"{'  ' * node.level}{node.name:<20} {node.memory_type:<10} {node.referent:<8} "
                f"half-life {node.half_life_days:g} d, base {node.base_strength:g}, "
                f"{node.valence}{pinned}{flags}"
            )
