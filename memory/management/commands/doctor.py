"""`cortex doctor [--json]`: what runs, the database's size, what waits, the nightly jobs,
the hooks; each problem with the one command that fixes it (exit status 1 when there is one).
The console's dashboard shows the same report (memory.selectors.doctor.doctor_report)."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.management.base import CommandParser

from memory.compiled.text import counted
from memory.management.base import DomainCommand
from memory.selectors.doctor import DoctorReport, Finding, doctor_report
from memory.selectors.storage import size_text


class Command(DomainCommand):
    help = ("Check this Cortex: what runs (web, workers, beat, NATS), the database's size by "
            "table and its write-ahead log, the observations and vectors waiting, the queues, "
            "the last sleep cycle and backup, the hooks' last outcome. Each problem comes with "
            "the one command that fixes it; the exit status is 1 when there is one.")
    examples = ("cortex doctor", "cortex doctor --json")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="the report as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        report = doctor_report(home=settings.CORTEX_HOME)
        if options["json"]:
            self.stdout.write(json.dumps(report.as_dict(), indent=2))
        else:
            self._print(report)
        if report.problems:
            raise SystemExit(1)

    def _print(self, report: DoctorReport) -> None:
        out = self.stdout.write
        self._section("what runs", report.processes)
        db = report.database
        free = db["disk_free_bytes"]
        out(f"\ndatabase: {size_text(db['bytes'])}, write-ahead log {size_text(db['wal_bytes'])}"
            + ("" if free is None else f", {size_text(free)} free on its disk"))
        for table in db["tables"]:
            out(f"  {table['table']:<40} {size_text(table['bytes']):>12}")
        self._section("waiting", report.waiting)
        self._section("nightly", report.nightly)
        self._section("hooks", report.hooks)
        problems = report.problems
        if not problems:
            out("\nno problem found")
            return
        out(f"\n{counted(len(problems), 'problem', 'problems')}:")
        for problem in problems:
            out(f"  {problem.name}: {problem.says}\n    fix: {problem.fix}")

    def _section(self, title: str, findings: list[Finding]) -> None:
        self.stdout.write(f"\n{title}:")
        for finding in findings:
            mark = "ok " if finding.ok else "!! "
            self.stdout.write(f"  {mark}{finding.name:<22} {finding.says}")
