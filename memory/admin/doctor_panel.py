"""The dashboard's health panel: `cortex doctor`'s report (memory.selectors.doctor), each
problem first with the one command that fixes it, then every finding by section and the
database's size by table."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from memory.selectors.doctor import Finding, doctor_report
from memory.selectors.storage import size_text


def _rows(section: str, findings: list[Finding]) -> list[dict[str, Any]]:
    return [{"section": section, "name": f.name, "ok": f.ok, "says": f.says, "fix": f.fix}
            for f in findings]


def doctor_panel() -> dict[str, Any]:
    report = doctor_report(home=settings.CORTEX_HOME)
    database = report.database
    return {
        "at": report.at,
        "problems": report.problems,
        "findings": [*_rows("what runs", report.processes), *_rows("waiting", report.waiting),
                     *_rows("nightly", report.nightly), *_rows("hooks", report.hooks)],
        "database": size_text(database["bytes"]),
        "wal": size_text(database["wal_bytes"]),
        "free": (None if database.get("disk_free_bytes") is None
                 else size_text(database["disk_free_bytes"])),
        "tables": [{"table": t["table"], "size": size_text(t["bytes"])}
                   for t in database["tables"]],
    }
