"""`cortex retain`: retain every pending observation now (the Retain Job, synchronously),
then run the offline passes (embeddings, embedding dedup), and print where they went."""

from __future__ import annotations

from typing import Any

import orjson
from django.core.management.base import CommandParser

from memory.management.base import DomainCommand
from memory.selectors.graph import graph_summary
from memory.services.retain import retain_drain, retain_retry


class Command(DomainCommand):
    help = ("Run the Retain Job now over the pending observations, then the offline "
            "embedding and dedup passes; print the routes and the graph's summary.")
    examples = ("cortex retain", "cortex retain --retry --json")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--no-embed", action="store_true",
                            help="skip the embedding and dedup passes")
        parser.add_argument("--retry", action="store_true",
                            help="first make failed and unhandled observations pending again")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["retry"]:
            self.stdout.write(f"retrying {retain_retry()} observation(s)")
        report = retain_drain(embed=not options["no_embed"])
        summary = graph_summary()
        if options["json"]:
            self.stdout.write(orjson.dumps({"retain": report.as_dict(),
                                            "routes": summary.routes,
                                            "counts": summary.counts}).decode())
            return
        statuses = sorted(report.chunks.statuses.items())
        self.stdout.write(f"retained {report.processed} observation(s): "
                          + ", ".join(f"{k} {v}" for k, v in statuses))
        self.stdout.write("routes (all retained observations): "
                          + ", ".join(f"{k} {v}" for k, v in summary.routes.items()))
        self.stdout.write("graph: " + ", ".join(f"{k} {v}" for k, v in summary.counts.items()))
