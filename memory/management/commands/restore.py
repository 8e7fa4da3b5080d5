"""`cortex restore PATH`: a backup into an empty CORTEX_HOME (docs/backup.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandParser

from memory.management.base import DomainCommand
from memory.services.backup import report_dict, restore_run


class Command(DomainCommand):
    help = ("Restore a backup of cortex backup into an empty CORTEX_HOME (its database holds "
            "no event): the database, then the secret key, the hooks' configuration and "
            "spooled events; checks that the raw log and the graph's digest are the backup's.")
    examples = ("CORTEX_HOME=~/.cortex-restored cortex restore "
                "~/.cortex/backups/cortex-20260601T030000.cortex-backup",)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="the backup file")
        parser.add_argument("--json", action="store_true", help="the report as JSON")

    def handle(self, *args: Any, path: Path, **options: Any) -> None:
        report = restore_run(path=path, home=settings.CORTEX_HOME)
        if options["json"]:
            self.stdout.write(json.dumps(report_dict(report)))
            return
        self.stdout.write(
            f"restored {report.path} (made {report.created_at}) in {report.seconds} s\n"
            f"  {report.events} events, identical; graph digest {report.graph_digest[:16]}..., "
            f"identical\n  CORTEX_HOME files: {', '.join(report.home_files) or 'none'}\n"
            "cortex up starts it (and migrates it if it was made by an older Cortex).")
