"""`cortex recall QUERY [--unit entity|memory] [--json] ...`: the API's recall, on the terminal."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from memory.management.commands.sleep import parse_instant
from memory.selectors.recall import RecallFilters
from memory.services.recall import recall_run


class Command(BaseCommand):
    help = "Recall what Cortex holds about QUERY (reinforces the hits unless --no-reinforce)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("query", nargs="+")
        parser.add_argument("--unit", choices=["entity", "memory"], default="entity")
        parser.add_argument("--namespace", default="")
        parser.add_argument("--project", default="")
        parser.add_argument("--actor", default="")
        parser.add_argument("--limit", type=int)
        parser.add_argument("--as-of", help="evaluate at this ISO 8601 time")
        parser.add_argument("--include-faded", action="store_true")
        parser.add_argument("--no-reinforce", action="store_true")
        parser.add_argument("--json", action="store_true", help="the API's JSON answer")

    def handle(self, *args: Any, **options: Any) -> None:
        filters = RecallFilters(namespace=options["namespace"], project=options["project"],
                                actor=options["actor"])
        as_of = parse_instant(options["as_of"]) if options["as_of"] else None
        result = recall_run(query=" ".join(options["query"]), unit=options["unit"],
                            filters=filters, limit=options["limit"], as_of=as_of,
                            include_faded=options["include_faded"],
                            reinforce=not options["no_reinforce"])
        hits = [hit.as_dict() for hit in result.hits]
        if options["json"]:
            self.stdout.write(json.dumps({"query": result.query, "unit": result.unit,
                                          "hits": hits}, indent=2, ensure_ascii=False))
            return
        if not hits:
            self.stdout.write("nothing recalled")
        for n, hit in enumerate(hits, start=1):
            strength = "pinned" if hit["pinned"] else f"{hit['strength'] or 0:.2f}"
            label = hit.get("key") or f"{hit['kind']} {hit.get('id')}"
            self.stdout.write(f"{n:>2}. {hit['score']:.3f}  [{strength}]  {label}")
            self.stdout.write(f"      {hit['snippet']}")
            for via in hit["relations"][:2]:
                self.stdout.write(f"      via {via}")
