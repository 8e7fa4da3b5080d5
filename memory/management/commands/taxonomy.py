"""`cortex taxonomy sync` (the tree from config/decay.yaml) and `cortex taxonomy show`."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from memory.models import Namespace
from memory.services.taxonomy import taxonomy_sync


class Command(BaseCommand):
    help = "Sync the namespace tree from config/decay.yaml, or show it."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        actions.add_parser("sync", help="create and update namespaces from the config (idempotent)")
        actions.add_parser("show", help="print the namespace tree with each node's defaults")

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
