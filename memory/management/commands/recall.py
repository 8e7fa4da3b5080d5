"""`cortex recall QUERY [--unit entity|memory] [--json] [--reinforce] ...`: the API's recall,
on the terminal. The operator's search looks without touching: nothing is reinforced unless
`--reinforce` (an agent's recall over the API, MCP or NATS reinforces what it returns)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandParser

from memory.management.base import NOT_CONSOLIDATED, DomainCommand, instant
from memory.selectors.recall import RecallFilters
from memory.services.backlog import consolidation_waiting
from memory.services.recall import recall_run


class Command(DomainCommand):
    help = ("Search what Cortex holds about QUERY: ranked entities (or memories), each with "
            "its score and its strength now. A search changes nothing unless --reinforce.")
    examples = ("cortex recall migrations",
                "cortex recall which package manager --project billing-api --unit memory",
                "cortex recall httpx --reinforce   # count the hits as used, as an agent's do")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("query", nargs="+", help="what to look for (words joined by spaces)")
        parser.add_argument("--unit", choices=["entity", "memory"], default="entity",
                            help="entities of the graph (default) or free-text memories")
        parser.add_argument("--namespace", default="",
                            help="only under this namespace, e.g. world:project")
        parser.add_argument("--project", default="", help="only what belongs to this project")
        parser.add_argument("--actor", default="", help="only what this actor said or did")
        parser.add_argument("--limit", type=int, help="how many hits (default: the config's)")
        parser.add_argument("--as-of", type=instant, help="evaluate at this ISO 8601 time")
        parser.add_argument("--include-faded", action="store_true",
                            help="also entities faded below their threshold")
        parser.add_argument("--reinforce", action="store_true",
                            help="reinforce each hit once, as an agent's recall does")
        parser.add_argument("--json", action="store_true", help="the API's JSON answer")

    def handle(self, *args: Any, **options: Any) -> None:
        filters = RecallFilters(namespace=options["namespace"], project=options["project"],
                                actor=options["actor"])
        result = recall_run(query=" ".join(options["query"]), unit=options["unit"],
                            filters=filters, limit=options["limit"], as_of=options["as_of"],
                            include_faded=options["include_faded"],
                            reinforce=options["reinforce"])
        hits = [hit.as_dict() for hit in result.hits]
        if options["json"]:
            self.stdout.write(json.dumps({"query": result.query, "unit": result.unit,
                                          "hits": hits, "reinforced": result.reinforced},
                                         indent=2, ensure_ascii=False))
            return
        if not hits:
            self.stdout.write(f"nothing recalled yet: {NOT_CONSOLIDATED}"
                              if consolidation_waiting() else "nothing recalled")
        for n, hit in enumerate(hits, start=1):
            strength = "pinned" if hit["pinned"] else f"strength {hit['strength'] or 0:.2f}"
            label = hit.get("key") or f"{hit['kind']} {hit.get('id')}"
            self.stdout.write(f"{n:>2}. {label}  score {hit['score']:.3f}  {strength}")
            self.stdout.write(f"      {hit['snippet']}")
            for via in hit["relations"][:2]:
                self.stdout.write(f"      via {via}")
        if options["reinforce"]:
            self.stderr.write(f"reinforced {result.reinforced} hit(s)")
