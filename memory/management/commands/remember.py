"""`cortex remember TEXT [--project P]`: a free-text memory from the local operator, stored
as a raw event (source `operator:<username>`) and consolidated like every memory."""

from __future__ import annotations

import getpass
from typing import Any

from django.core.management.base import CommandParser

from memory.management.base import DomainCommand
from memory.services.memories import memories_remember


class Command(DomainCommand):
    help = ("Remember a free-text memory as the local operator: a raw event first, then "
            "consolidated and linked to what it names.")
    examples = ('cortex remember "Anya reviews code in the morning" --project billing-api',
                'cortex remember "The Lisbon launch moves to Friday" --occurred-at 2026-05-04')

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("text", nargs="+", help="the memory (words are joined by spaces)")
        parser.add_argument("--project", default="", help="the project it belongs to")
        parser.add_argument("--actor", default="", help="who it is about or from")
        parser.add_argument("--occurred-at", default=None, help="ISO 8601; default: now")
        parser.add_argument("--source-id", default=None,
                            help="an id of your own (default: a hash of the content)")

    def handle(self, *args: Any, **options: Any) -> None:
        username = getpass.getuser() or "operator"
        memory: dict[str, Any] = {"text": " ".join(options["text"]),
                                  "project": options["project"], "actor": options["actor"]}
        for name in ("occurred_at", "source_id"):
            if options[name] is not None:
                memory[name] = options[name]
        result = memories_remember(source=f"operator:{username}", memories=[memory],
                                   batch=False, default_actor=username)[0]
        state = "remembered" if result.created else "already remembered"
        self.stdout.write(f"{state}: event {result.id} ({result.source_id})")
