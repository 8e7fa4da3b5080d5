"""The dashboard shows `cortex doctor`'s report: each problem at the top with the one command
that fixes it, and the whole report (every finding, the database by table) at the bottom."""

from __future__ import annotations

import json
import re
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client, override_settings

from memory.admin import doctor_panel
from memory.models import SleepCycleRun
from memory.selectors.doctor import DoctorReport
from tests.console.conftest import NOW, Graph


def _home(client: Client) -> str:
    response = client.get("/admin/")
    assert response.status_code == 200
    return response.content.decode()


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


def _problems(html: str) -> dict[str, str]:
    found = re.search(r'<ul id="doctor-problems">(.*?)</ul>', html, re.S)
    assert found is not None, "no problem listed"
    items = [_text(item) for item in re.findall(r"<li>(.*?)</li>", found.group(1), re.S)]
    return {item.split(":", 1)[0]: item for item in items}


def _rows(html: str, table_id: str) -> list[list[str]]:
    table = re.search(rf'<table id="{table_id}">(.*?)</table>', html, re.S)
    assert table is not None
    return [[_text(c) for c in re.findall(r"<t[hd]>(.*?)</t[hd]>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", table.group(1), re.S)]


def _home_with_problems(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / "hooks" / "spool").mkdir(parents=True)
    (home / "last-backup.json").write_text(json.dumps(
        {"ok": False, "at": (NOW - timedelta(hours=9)).isoformat(),
         "error": "No space left on the device of /backups"}))
    (home / "hooks" / "last.json").write_text(json.dumps(
        {"at": NOW.isoformat(), "event": "UserPromptSubmit", "state": "unreachable",
         "says": "Cortex does not answer"}))
    (home / "hooks" / "spool" / "0001.jsonl").write_text("{}\n")
    return home


def test_each_problem_is_on_the_dashboard_with_its_fix(
        operator: Client, graph: Graph, tmp_path: Path) -> None:
    at = NOW - timedelta(hours=2)
    SleepCycleRun.objects.create(as_of=at, trigger="beat", status="succeeded", started_at=at,
                                 finished_at=at, duration_ms=10, config_digest="d")
    with override_settings(CORTEX_HOME=_home_with_problems(tmp_path)):
        html = _home(operator)
    problems = _problems(html)
    # nothing runs for this home; the backup failed; the hooks found Cortex away and spooled
    assert "Fix: cortex up" in problems["cortex up"]
    assert "Fix: cortex up" in problems["workers"]
    assert "No space left on the device of /backups" in problems["last backup"]
    assert problems["last backup"].endswith("Fix: cortex backup")
    assert problems["hooks"].endswith("Fix: cortex up")
    assert problems["hook spool"].endswith("Fix: cortex hook flush")
    assert "last sleep cycle" not in problems  # two hours ago, succeeded
    findings = {row[1]: row for row in _rows(html, "doctor-findings")[1:]}
    assert findings["last sleep cycle"][:3] == ["nightly", "last sleep cycle", "ok"]
    assert findings["last sleep cycle"][4] == ""  # no fix for what is fine
    assert findings["last backup"][2:] == ["problem", problems["last backup"].split(": ", 1)[1]
                                           .rsplit(". Fix: ", 1)[0], "cortex backup"]
    assert html.index('id="doctor-problems"') < html.index('id="layer-counts"')


def test_the_database_by_table_and_its_write_ahead_log(operator: Client, graph: Graph) -> None:
    html = _home(operator)
    with connection.cursor() as cursor:
        cursor.execute("SELECT c.relname FROM pg_class c JOIN pg_namespace n "
                       "ON n.oid = c.relnamespace WHERE n.nspname = 'public' "
                       "AND c.relkind IN ('r', 'p', 'm') "
                       "ORDER BY pg_total_relation_size(c.oid) DESC, 1 LIMIT 10")
        largest = [name for (name,) in cursor.fetchall()]
        cursor.execute("SELECT count(*) FROM pg_ls_waldir()")
        segments = cursor.fetchone()
    rows = _rows(html, "doctor-tables")
    assert [row[0] for row in rows[1:]] == largest
    assert all(re.fullmatch(r"[0-9.]+ (B|KiB|MiB|GiB)", row[1]) for row in rows[1:])
    heading = re.search(r'<h3 id="doctor-database">(.*?)</h3>', html, re.S)
    assert heading is not None
    wal = re.search(r"write-ahead log ([0-9.]+) MiB", heading.group(1))
    assert segments is not None and wal is not None
    assert float(wal.group(1)) >= 16 * segments[0] - 0.1  # 16 MiB segments
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('data_directory')")
        directory = cursor.fetchone()
    assert directory is not None
    free = re.search(r"([0-9.]+) (MiB|GiB) free on its disk", heading.group(1))
    assert free is not None  # the test's embedded server: its data directory is here
    shown = float(free.group(1)) * 2 ** (20 if free.group(2) == "MiB" else 30)
    assert abs(shown - shutil.disk_usage(str(directory[0])).free) < 2**30  # the same disk


def test_no_problem_says_so(operator: Client, graph: Graph,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    def healthy(*, home: Path) -> DoctorReport:
        return DoctorReport(at=NOW, database={"bytes": 2048, "tables": [], "wal_bytes": 0})

    monkeypatch.setattr(doctor_panel, "doctor_report", healthy)
    html = _home(operator)
    assert '<p id="doctor-problems">No problem found.</p>' in html
    assert "Database: 2.0 KiB, write-ahead log 0 B" in _text(html)
