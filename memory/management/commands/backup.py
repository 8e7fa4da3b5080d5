"""`cortex backup [PATH]`: the database and CORTEX_HOME's own files in one file, while Cortex
runs (docs/backup.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandParser

from memory.management.base import DomainCommand
from memory.services.backup import backup_create, report_dict


class Command(DomainCommand):
    help = ("Back up Cortex while it runs: the database (pg_dump, one consistent snapshot) and "
            "what CORTEX_HOME holds that nothing derives (the secret key, the hooks' "
            "configuration and token, spooled events), in one file. cortex restore puts it "
            "back.")
    examples = ("cortex backup", "cortex backup /mnt/usb/",
                "cortex backup ~/cortex-before-upgrade.cortex-backup")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", nargs="?", type=Path,
                            help="a file to create, or a directory to create it in "
                                 "(default: CORTEX_HOME/backups, or backup.directory)")
        parser.add_argument("--json", action="store_true", help="the report as JSON")

    def handle(self, *args: Any, path: Path | None, **options: Any) -> None:
        report = backup_create(home=settings.CORTEX_HOME, path=path)
        if options["json"]:
            self.stdout.write(json.dumps(report_dict(report)))
            return
        self.stdout.write(
            f"backup written: {report.path} ({report.size_bytes / 2**20:.1f} MiB, "
            f"{report.seconds} s)\n  {report.events} events, graph digest "
            f"{report.graph_digest[:16]}..., CORTEX_HOME files: "
            f"{', '.join(report.home_files) or 'none'}")
