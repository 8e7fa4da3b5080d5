"""`cortex backup` while Cortex writes, then `cortex restore` into an empty CORTEX_HOME (its
own embedded PostgreSQL, started by the restore as any first command starts it): the raw
log identical event for event, the graph's digest equal, the agent's token valid, the
hooks' files back, and the restored Cortex going on after its last event. A full disk
leaves no half-written backup."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection

from insight.services.analysis import analysis_drain
from memory.errors import DomainError, Invalid, Refused
from memory.models.events import MemoryEvent
from memory.selectors.graph import graph_digest
from memory.services.agents import agent_create
from memory.services.backup import backup_create, backup_prune, backup_target, restore_run
from memory.services.events import event_append
from memory.services.memories import memories_remember
from memory.services.retain import retain_drain
from memory.services.taxonomy import taxonomy_sync

pytestmark = pytest.mark.django_db(transaction=True)

CORTEX = shutil.which("cortex") or str(Path(sys.executable).parent / "cortex")
MEMORIES = ["Anya Kowalski decided that the Lisbon launch moves to Friday.",
            "Never use requests in billing-api, use httpx instead.",
            "Marc prefers code reviews in the morning."]
COLUMNS = ("id", "source", "source_id", "type", "subtype", "occurred_at", "actor",
           "project", "txid")

# Run inside the restored CORTEX_HOME: what it holds, read by Django's own models there.
READ_BACK = """
import json, sys
from memory.models.events import MemoryEvent
from memory.selectors.graph import graph_digest
from memory.mcp.auth import agent_authenticate
from memory.services.memories import memories_remember
from memory.selectors.commit_horizon import committed
cols = %r
events = [[str(getattr(e, c)) for c in cols] + [json.dumps(e.payload, sort_keys=True,
                                                           default=str)]
          for e in MemoryEvent.objects.order_by("id")]
old_max = max(int(e[-2]) for e in events)
agent = agent_authenticate(token=%r).name
new = memories_remember(source="operator:test", memories=[{"text": "after the restore"}])[0]
new_txid = MemoryEvent.objects.get(id=new.id).txid
readable = committed(MemoryEvent.objects.all()).count()
print(json.dumps({"events": events, "digest": graph_digest(), "agent": agent,
                  "new_after_old": new_txid > old_max, "readable": readable}))
"""


def _events() -> list[list[str]]:
    return [[str(getattr(e, c)) for c in COLUMNS]
            + [json.dumps(e.payload, sort_keys=True, default=str)]
            for e in MemoryEvent.objects.order_by("id")]


def _source_home(tmp_path: Path) -> Path:
    home = tmp_path / "source-home"
    (home / "hooks" / "spool").mkdir(parents=True)
    (home / "secret_key").write_text("the-source-secret-key")
    (home / "hooks" / "config.json").write_text('{"token": "hook-token", "url": "x"}')
    (home / "hooks" / "spool" / "0001.json").write_text('{"event": "spooled"}')
    (home / "compiled").mkdir()
    (home / "compiled" / "derived.md").write_text("derived: not backed up")
    return home


@pytest.fixture
def filled() -> str:
    taxonomy_sync()
    memories_remember(source="operator:test", memories=[{"text": t} for t in MEMORIES])
    analysis_drain()
    retain_drain(embed=False)
    _, token = agent_create(name="restored-agent", scopes=["recall:read"])
    return token


def _writing_during(action: Any) -> Any:
    """`action()` while another connection appends events, one after another."""
    stop, written = threading.Event(), list[int]()

    def write() -> None:
        try:
            while not stop.is_set():
                n = len(written)
                event_append(source="writer", event={"source_id": f"w{n}", "type": "note",
                                                     "payload": {"n": n}})
                written.append(n)
        finally:
            connection.close()

    writer = threading.Thread(target=write)
    writer.start()
    try:
        return action()
    finally:
        stop.set()
        writer.join()


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"DATABASE_URL", "XDG_RUNTIME_DIR", "CORTEX_SECRET_KEY"}}
    env["CORTEX_HOME"] = str(home)
    return env


def test_a_backup_taken_while_writing_restores_identically(filled: str, tmp_path: Path) -> None:
    source = _source_home(tmp_path)
    report = _writing_during(lambda: backup_create(home=source, path=tmp_path / "backups"))
    assert graph_digest() == report.graph_digest  # nothing retained meanwhile
    with tarfile.open(report.path) as tar:
        names = set(tar.getnames())
        manifest = json.loads(tar.extractfile("manifest.json").read())  # type: ignore[union-attr]
    assert {"home/secret_key", "home/hooks/config.json", "home/hooks/spool/0001.json"} <= names
    assert "home/compiled/derived.md" not in names
    # The events of the backup's snapshot: those before it, some of the writer's, in order.
    in_backup = manifest["database"]["events"]
    everything = _events()
    expected = [e for e in everything if e[1] != "writer"]
    writers = [e for e in everything if e[1] == "writer"]
    assert len(expected) <= in_backup <= len(everything)
    kept_writers = in_backup - len(expected)
    expected_events = sorted(expected + sorted(writers, key=lambda e: int(e[2][1:]))
                             [:kept_writers], key=lambda e: e[0])

    target = tmp_path / "restored-home"
    done = subprocess.run([CORTEX, "restore", report.path], env=_env(target),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "identical" in done.stdout
    read = subprocess.run([CORTEX, "shell", "-c", READ_BACK % (COLUMNS, filled)],
                          env=_env(target), capture_output=True, text=True, timeout=300)
    assert read.returncode == 0, read.stderr[-3000:]
    back = json.loads(read.stdout.strip().splitlines()[-1])

    assert [e[:len(COLUMNS)] for e in back["events"]] == \
        [e[:len(COLUMNS)] for e in expected_events]
    assert [e[-1] for e in back["events"]] == [e[-1] for e in expected_events]
    assert back["digest"] == report.graph_digest
    assert back["agent"] == "restored-agent"
    assert back["new_after_old"] is True  # the restored Cortex goes on after its last event
    assert back["readable"] == len(expected_events) + 1
    assert (target / "secret_key").read_text() == "the-source-secret-key"
    assert (target / "hooks" / "config.json").read_text() == \
        '{"token": "hook-token", "url": "x"}'
    assert (target / "hooks" / "spool" / "0001.json").exists()


def test_a_restore_into_a_home_that_holds_events_touches_nothing(filled: str,
                                                                  tmp_path: Path) -> None:
    report = backup_create(home=_source_home(tmp_path), path=tmp_path / "b.cortex-backup")
    before, digest = _events(), graph_digest()
    home = tmp_path / "busy-home"
    home.mkdir()
    with pytest.raises(DomainError, match="already holds"):
        restore_run(path=Path(report.path), home=home)
    assert _events() == before and graph_digest() == digest
    assert list(home.iterdir()) == []


def test_a_backup_never_overwrites_and_the_nightly_keeps_the_last_n(filled: str,
                                                                    tmp_path: Path) -> None:
    target = tmp_path / "one.cortex-backup"
    backup_create(home=_source_home(tmp_path), path=target)
    size = target.stat().st_size
    with pytest.raises(DomainError, match="exists"):
        backup_create(home=tmp_path / "source-home", path=target)
    assert target.stat().st_size == size
    directory = tmp_path / "nightly"
    directory.mkdir()
    for day in range(1, 6):
        (directory / f"cortex-202606{day:02d}T030000.cortex-backup").write_text("x")
    (directory / "notes.txt").write_text("not ours")
    removed = backup_prune(directory=directory, keep=2)
    assert sorted(p.name for p in directory.iterdir()) == [
        "cortex-20260604T030000.cortex-backup", "cortex-20260605T030000.cortex-backup",
        "notes.txt"]
    assert len(removed) == 3


def test_a_backup_path_is_a_new_file_or_a_directory_inside_one_that_exists(
        tmp_path: Path) -> None:
    now = datetime(2026, 6, 1, 2, 30, tzinfo=UTC)
    name = "cortex-20260601T023000.cortex-backup"
    assert backup_target(home=tmp_path, path=tmp_path, now=now) == tmp_path / name
    assert backup_target(home=tmp_path, path=tmp_path / "new", now=now) == (
        tmp_path / "new" / name)
    assert (tmp_path / "new").is_dir()
    assert backup_target(home=tmp_path, path=tmp_path / "b.cortex-backup", now=now) == (
        tmp_path / "b.cortex-backup")
    (tmp_path / "notes").write_text("an operator's file")
    with pytest.raises(Refused, match="never overwrites"):  # no suffix, yet a file
        backup_target(home=tmp_path, path=tmp_path / "notes", now=now)
    with pytest.raises(Invalid, match="is not a directory"):  # /mnt/usbb/ for /mnt/usb/
        backup_target(home=tmp_path, path=tmp_path / "usbb" / "cortex", now=now)
    assert not (tmp_path / "usbb").exists()
    assert (tmp_path / "notes").read_text() == "an operator's file"


def test_what_is_not_a_backup_file_is_refused_in_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "notes.cortex-backup").write_text("an operator's notes, not a backup\n")
    with pytest.raises(Invalid) as refused:
        restore_run(path=tmp_path / "notes.cortex-backup", home=home)
    said = refused.value.describe()
    assert "is not a Cortex backup (" in said and "\n" not in said, said
    with pytest.raises(Invalid, match="is a directory: give the backup file in it"):
        restore_run(path=tmp_path, home=home)
    assert list(home.iterdir()) == []


@pytest.fixture
def full_disk(tmp_path: Path) -> Any:
    mount = tmp_path / "full"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(mount)],
                          capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_a_full_disk_says_so_and_leaves_nothing(filled: str, tmp_path: Path,
                                                full_disk: Path) -> None:
    # The dump of the test database is larger than the disk: pg_dump itself runs out.
    for n in range(300):
        event_append(source="bulk", event={"source_id": f"b{n}", "type": "note",
                                           "payload": {"text": os.urandom(600).hex()}})
    with pytest.raises(DomainError, match="No space left") as refused:
        backup_create(home=_source_home(tmp_path), path=full_disk)
    assert "nothing was written" in str(refused.value)
    assert list(full_disk.iterdir()) == []


@pytest.mark.worker
def test_the_nightly_backup_runs_on_a_worker_and_keeps_the_last_n(
        filled: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from django_celery_beat.models import PeriodicTask

    from memory.selectors.backup import backup_last
    from memory.services.schedule import beat_schedule_ensure
    from memory.tasks.backup import backup_nightly_task
    from tests.retain.workers import Worker, purge_queue, wait_for

    beat_schedule_ensure()
    nightly = PeriodicTask.objects.get(name="memory: nightly backup")
    assert (nightly.task, nightly.crontab.hour, nightly.crontab.minute) == \
        ("memory.backup_nightly", "2", "30")  # a crontab: edited in the admin as the sleep's

    directory = tmp_path / "nightly"
    directory.mkdir()
    old = [f"cortex-2026060{day}T023000.cortex-backup" for day in (1, 2, 3)]
    for name in old:
        (directory / name).write_text("an older night")
    config = tmp_path / "decay.yaml"
    original = (Path(settings.BASE_DIR) / "config" / "decay.yaml").read_text()
    config.write_text(original.replace('  keep: 7\n', '  keep: 2\n')
                      .replace('  directory: ""\n', f'  directory: "{directory}"\n'))
    monkeypatch.setenv("CORTEX_CONFIG", str(config))
    purge_queue()
    worker = Worker("nightly", tmp_path / "worker.log")
    try:
        backup_nightly_task.delay()
        wait_for(lambda: "memory.backup_nightly[" in worker.output()
                 and "succeeded" in worker.output(), what="the nightly backup",
                 log=tmp_path / "worker.log")
    finally:
        worker.stop()
        purge_queue()
    kept = sorted(p.name for p in directory.iterdir())
    assert len(kept) == 2 and kept[0] == old[-1] and kept[1] not in old, kept
    with tarfile.open(directory / kept[1]) as tar:
        manifest = json.loads(tar.extractfile("manifest.json").read())  # type: ignore[union-attr]
    assert manifest["database"]["events"] == MemoryEvent.objects.count()
    last = backup_last(home=Path(settings.CORTEX_HOME))
    assert last is not None and last["ok"] and last["path"] == str(directory / kept[1])
