"""`cortex context QUERY [--project P] [--session S] [--budget N] [--json]`: the API's prompt
context, on the terminal (reinforces what it injects, like the API)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandParser

from memory.management.base import NOT_CONSOLIDATED, DomainCommand
from memory.services.backlog import consolidation_waiting
from memory.services.context import context_assemble


class Command(DomainCommand):
    help = ("Print the context block Cortex would put into a prompt about QUERY: the pinned "
            "entities, then the strongest relevant ones, within a token budget. Like the "
            "API, it reinforces what it gives.")
    examples = ("cortex context add a retry to the HTTP client --project billing-api",
                "cortex context --project billing-api --budget 600 --json")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("query", nargs="*", help="the prompt or task (may be empty)")
        parser.add_argument("--agent", default="operator",
                            help="who the context is for (default: operator)")
        parser.add_argument("--project", default="", help="the project the prompt is in")
        parser.add_argument("--session", default="", help="apply this session's ledger")
        parser.add_argument("--budget", type=int, default=2000, help="tokens (default 2000)")
        parser.add_argument("--json", action="store_true", help="the API's JSON answer")

    def handle(self, *args: Any, **options: Any) -> None:
        result = context_assemble(query=" ".join(options["query"]), agent=options["agent"],
                                  session=options["session"], project=options["project"],
                                  budget_tokens=options["budget"])
        if options["json"]:
            self.stdout.write(json.dumps(result.as_dict(), indent=2, ensure_ascii=False))
            return
        if result.context:
            self.stdout.write(result.context)
        elif consolidation_waiting():
            self.stdout.write(f"(nothing to inject yet: {NOT_CONSOLIDATED})")
        else:
            self.stdout.write("(nothing to inject)")
        summary = f"{len(result.entities)} entities, {result.tokens_used} tokens"
        if result.dropped:
            summary += f", {len(result.dropped)} dropped for budget"
        self.stderr.write(summary)
