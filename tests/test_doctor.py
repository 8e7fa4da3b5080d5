"""`cortex doctor`: each problem is found and comes with the one command that fixes it, and
goes once that command has run; what runs under `cortex up` is seen as running."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection

from insight.services.analysis import analysis_drain
from memory.selectors.doctor import doctor_report
from memory.services.backup import backup_create
from memory.services.memories import memories_remember
from memory.services.retain import retain_drain
from memory.services.sleep_cycle import sleep_cycle_run
from memory.services.sql import connection_url
from memory.services.taxonomy import taxonomy_sync

pytestmark = pytest.mark.django_db(transaction=True)

CORTEX = shutil.which("cortex") or str(Path(sys.executable).parent / "cortex")


def _fixes(home: Path) -> dict[str, str]:
    return {p.name: p.fix for p in doctor_report(home=home).problems}


def test_each_problem_has_its_fix_and_goes_once_it_ran(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "hooks" / "spool").mkdir(parents=True)
    taxonomy_sync()
    memories_remember(source="operator:test", memories=[{"text": "Anya moved to Lisbon."}])
    analysis_drain()
    fixes = _fixes(home)
    assert fixes["cortex up"] == "cortex up" and fixes["workers"] == "cortex up"
    assert fixes["observations pending"] == "cortex retain"
    assert fixes["last sleep cycle"] == "cortex sleep"
    assert fixes["last backup"] == "cortex backup"
    assert "hooks" not in fixes  # no hook ran: not a problem

    (home / "hooks" / "last.json").write_text(json.dumps({
        "at": "2026-06-01T10:00:00+00:00", "event": "UserPromptSubmit", "state": "unreachable",
        "says": "Cortex does not answer"}))
    (home / "hooks" / "spool" / "0001.jsonl").write_text("{}\n")
    fixes = _fixes(home)
    assert fixes["hooks"] == "cortex up" and fixes["hook spool"] == "cortex hook flush"

    retain_drain(embed=True)
    sleep_cycle_run(trigger="command")
    backup_create(home=home, path=tmp_path / "backups")
    fixes = _fixes(home)
    for gone in ("observations pending", "vectors pending", "last sleep cycle", "last backup"):
        assert gone not in fixes, (gone, fixes)


def test_the_database_size_by_table_and_the_write_ahead_log() -> None:
    taxonomy_sync()
    database = doctor_report(home=Path(settings.CORTEX_HOME)).database
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_total_relation_size('memory_namespace'), "
                       "pg_database_size(current_database())")
        namespace_bytes, total = cursor.fetchone()
    sizes = {t["table"]: t["bytes"] for t in database["tables"]}
    assert sizes.get("memory_namespace", namespace_bytes) == namespace_bytes
    assert list(sizes.values()) == sorted(sizes.values(), reverse=True)
    assert sum(sizes.values()) <= database["bytes"] and abs(database["bytes"] - total) < 2**24
    assert database["wal_bytes"] and database["wal_bytes"] >= 16 * 2**20  # one segment


def test_a_failed_backup_is_a_problem_with_its_fix(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "last-backup.json").write_text(json.dumps(
        {"ok": False, "at": "2026-06-01T02:30:00+00:00", "error": "No space left"}))
    found = {p.name: p for p in doctor_report(home=home).problems}
    assert "No space left" in found["last backup"].says
    assert found["last backup"].fix == "cortex backup"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_what_runs_under_cortex_up_is_seen(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "CORTEX_HOME": str(home), "DATABASE_URL": connection_url(),
           "REDIS_URL": settings.REDIS_URL}
    env.pop("NATS_URL", None)
    up = subprocess.Popen([CORTEX, "up", "--port", str(_free_port()), "--workers", "1"],
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        report: dict[str, Any] = {}
        while time.monotonic() < deadline:
            assert up.poll() is None, "cortex up exited"
            done = subprocess.run([CORTEX, "doctor", "--json"], env=env, capture_output=True,
                                  text=True, timeout=120)
            assert done.stdout.strip(), f"cortex doctor printed no report: {done.stderr}"
            report = json.loads(done.stdout)
            running = {f["name"]: f["ok"] for f in report["processes"]}
            answered = next((f["says"] for f in report["processes"] if f["name"] == "workers"), "")
            # both workers answer the ping (within a second: on a loaded machine, a worker
            # still starting may miss one)
            if all(running.get(n) for n in ("cortex up", "web", "worker default",
                                            "worker long", "beat", "workers")) and (
                    "default@" in answered and "long@" in answered):
                break
            time.sleep(2)
        running = {f["name"]: f for f in report["processes"]}
        for name in ("cortex up", "web", "worker default", "worker long", "beat", "workers"):
            assert running[name]["ok"], (name, running)
        assert "default" in running["workers"]["says"] and "long" in running["workers"]["says"]
        assert not [p for p in report["problems"] if p["fix"] == "cortex up"]
    finally:
        os.killpg(up.pid, signal.SIGINT)
        up.wait(timeout=60)
