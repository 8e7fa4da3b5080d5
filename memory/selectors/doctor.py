"""`cortex doctor` (and the console's dashboard): what runs, how big the database is, what
waits, when the sleep cycle and the backup last ran, what the hooks last found. Each finding
that is a problem carries the one command that fixes it."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import psutil
import redis
from celery import current_app
from django.conf import settings
from django.db import DatabaseError, connection
from django.db.models import Q

from memory import clock
from memory.compiled.text import counted
from memory.config import config_get
from memory.models import Entity, Memory, Observation
from memory.models.embeddings import embedding_unread
from memory.models.graph import EntityStatus
from memory.models.observations import ObservationStatus
from memory.retain.embedders import embedder_get
from memory.runtime import runtime_alive, runtime_read
from memory.selectors.backup import backup_last
from memory.selectors.sleep_cycle import sleep_cycle_last
from memory.selectors.storage import data_directory

STALE_AFTER = timedelta(hours=26)  # a nightly job older than this missed a night
PING_SECONDS = 1.0
TABLES_SHOWN = 10
KOMBU_PRIORITY_STEPS = (3, 6, 9)  # Redis transport: queue, queue\x06\x163, ... per priority
HOOKS_LAST = Path("hooks") / "last.json"  # written by the hooks (insight/hooks/status.py)
HOOK_PROBLEMS = {"unreachable": "cortex up", "refused": "cortex setup claude-code",
                 "not set up": "cortex setup claude-code"}
# Under `cortex up`: each child's command line, by what it is.
CHILDREN = (("web", ("cortex_site.wsgi:application",)),
            ("worker default", ("worker", "-Q", "default")),
            ("worker long", ("worker", "-Q", "long")), ("beat", ("beat",)),
            ("nats", ("cortex", "nats")))


@dataclass(frozen=True)
class Finding:
    name: str
    ok: bool
    says: str
    fix: str = ""  # the one command that fixes it, when it is a problem


@dataclass
class DoctorReport:
    at: datetime
    processes: list[Finding] = field(default_factory=list)
    database: dict[str, Any] = field(default_factory=dict)
    waiting: list[Finding] = field(default_factory=list)
    nightly: list[Finding] = field(default_factory=list)
    hooks: list[Finding] = field(default_factory=list)

    @property
    def problems(self) -> list[Finding]:
        return [f for f in (*self.processes, *self.waiting, *self.nightly, *self.hooks)
                if not f.ok]

    def as_dict(self) -> dict[str, Any]:
        body = asdict(self)
        body["at"] = self.at.isoformat()
        body["problems"] = [asdict(p) for p in self.problems]
        return body


def doctor_report(*, home: Path, now: datetime | None = None) -> DoctorReport:
    now = now or clock.now()
    workers = _workers()
    report = DoctorReport(at=now, processes=_processes(home=home, workers=workers),
                          database=database_size())
    report.waiting = _waiting(workers=workers)
    report.nightly = [_sleep_cycle(now=now), _backup(home=home, now=now)]
    report.hooks = _hooks(home=home)
    return report


# ---- what runs ----------------------------------------------------------------------------


def _processes(*, home: Path, workers: dict[str, list[str]]) -> list[Finding]:
    record = runtime_read(home)
    if not runtime_alive(record):
        found = [Finding("cortex up", False, "not running for this CORTEX_HOME", "cortex up")]
    else:
        assert record is not None
        found = [Finding("cortex up", True, f"pid {record['pid']}, {record.get('url', '?')}")]
        found += _children(int(record["pid"]))
    if workers:
        found.append(Finding("workers", True, "; ".join(
            f"{name} ({', '.join(queues) or 'no queue'})" for name, queues in workers.items())))
    else:
        found.append(Finding("workers", False, f"none answers within {PING_SECONDS:g}s: "
                             "nothing is retained or analyzed in the background", "cortex up"))
    return found


def _children(pid: int) -> list[Finding]:
    try:
        lines = [{os.path.basename(word) for word in p.cmdline()}
                 for p in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        lines = []
    found = []
    for name, words in CHILDREN:
        if name == "nats" and not settings.NATS_URL:
            continue
        running = any(all(w in words_of for w in words) for words_of in lines)
        found.append(Finding(name, running, "running" if running else "not running",
                             "" if running else "cortex up"))
    return found


def _workers() -> dict[str, list[str]]:
    """The Celery workers that answer, with the queues they consume."""
    try:
        inspect = current_app.control.inspect(timeout=PING_SECONDS)
        queues = inspect.active_queues() or {}
    except Exception:  # the broker is away: no worker can answer either
        return {}
    return {name: sorted(q["name"] for q in consumed) for name, consumed in queues.items()}


# ---- the database -------------------------------------------------------------------------


def database_size() -> dict[str, Any]:
    """The database's size, its largest tables (with their indexes and TOAST) and the
    write-ahead log's (None when this role may not list it)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_database_size(current_database())")
        total = cursor.fetchone()
        cursor.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'm') "
            "ORDER BY 2 DESC, 1 LIMIT %s", [TABLES_SHOWN])
        tables = [{"table": name, "bytes": int(size)} for name, size in cursor.fetchall()]
    directory = data_directory()
    return {"bytes": int(total[0]) if total else 0, "tables": tables, "wal_bytes": _wal(),
            "disk_free_bytes": shutil.disk_usage(str(directory)).free if directory else None}





def _wal() -> int | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT coalesce(sum(size), 0) FROM pg_ls_waldir()")
            row = cursor.fetchone()
    except DatabaseError:  # pg_ls_waldir needs pg_monitor on a configured server
        return None
    return int(row[0]) if row else None


# ---- what waits ---------------------------------------------------------------------------


def _waiting(*, workers: dict[str, list[str]]) -> list[Finding]:
    consumed = {q for queues in workers.values() for q in queues}
    pending = Observation.objects.filter(status=ObservationStatus.PENDING).count()
    failed = Observation.objects.filter(status=ObservationStatus.FAILED).count()
    model = embedder_get(config_get().retain.embedder).model_id
    entities = (Entity.objects.exclude(status=EntityStatus.MERGED)
                .filter(Q(embedding__isnull=True)
                        | embedding_unread(model, through="embedding__")).count())
    memories = Memory.objects.filter(embedded=False).count()
    queued = _queue_lengths()
    found = [
        Finding("observations pending", pending == 0 or settings.CORTEX_QUEUE_DEFAULT in consumed,
                f"{pending}" + ("" if pending == 0 or consumed else ", and no worker retains them"),
                "cortex retain"),
        Finding("observations failed", failed == 0, f"{failed}", "cortex retain --retry"),
        Finding("vectors pending", (entities + memories) == 0
                or settings.CORTEX_QUEUE_LONG in consumed,
                f"{entities} entities, {memories} memories not embedded yet", "cortex retain"),
    ]
    for queue, length in queued.items():
        served = length == 0 or queue in consumed
        found.append(Finding(f"queue {queue}", served, counted(length, "task", "tasks")
                             + ("" if served else ", no worker consumes it"), "cortex up"))
    return [f if not f.ok else Finding(f.name, True, f.says) for f in found]


def _queue_lengths() -> dict[str, int]:
    try:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=PING_SECONDS)
        lengths = {}
        for queue in (settings.CORTEX_QUEUE_DEFAULT, settings.CORTEX_QUEUE_LONG):
            keys = [queue, *(f"{queue}\x06\x16{step}" for step in KOMBU_PRIORITY_STEPS)]
            lengths[queue] = sum(int(client.llen(key)) for key in keys)
        return lengths
    except redis.RedisError:
        return {}


# ---- the nightly jobs ---------------------------------------------------------------------


def _sleep_cycle(*, now: datetime) -> Finding:
    run = sleep_cycle_last()
    if run is None:
        return Finding("last sleep cycle", False, "never ran", "cortex sleep")
    when = run.finished_at or run.started_at
    says = f"{run.status}, {_ago(now - when)} ({when.isoformat(timespec='minutes')})"
    if run.status == "failed":
        return Finding("last sleep cycle", False, f"{says}: {run.error[:200]}", "cortex sleep")
    if now - when > STALE_AFTER:
        return Finding("last sleep cycle", False, f"{says}: a night was missed",
                       "cortex sleep")
    return Finding("last sleep cycle", True, says)


def _backup(*, home: Path, now: datetime) -> Finding:
    last = backup_last(home=home)
    if last is None:
        return Finding("last backup", False, "never", "cortex backup")
    try:
        when = datetime.fromisoformat(str(last.get("at")))
    except ValueError:
        return Finding("last backup", False, "unreadable record", "cortex backup")
    ago = f"{_ago(now - when)} ({when.isoformat(timespec='minutes')})"
    if not last.get("ok"):
        return Finding("last backup", False, f"failed {ago}: {last.get('error', '?')}",
                       "cortex backup")
    says = f"{ago}, {last.get('path')}"
    if now - when > STALE_AFTER:
        return Finding("last backup", False, f"{says}: a night was missed", "cortex backup")
    return Finding("last backup", True, says)


def _ago(delta: timedelta) -> str:
    minutes = max(0, int(delta.total_seconds() // 60))
    if minutes < 60:
        return f"{minutes} min ago"
    if minutes < 48 * 60:
        return f"{minutes // 60} h ago"
    return f"{minutes // 1440} days ago"


# ---- the hooks ----------------------------------------------------------------------------


def _hooks(*, home: Path) -> list[Finding]:
    try:
        last = json.loads((home / HOOKS_LAST).read_text())
    except (OSError, ValueError):
        last = None
    spooled = len(list((home / "hooks" / "spool").glob("*.jsonl")))
    if not isinstance(last, dict):
        found = [Finding("hooks", True, "no hook has run with this CORTEX_HOME")]
    else:
        state = str(last.get("state", "?"))
        says = f"{last.get('event', '?')} at {last.get('at', '?')}: {state}, {last.get('says', '')}"
        fix = HOOK_PROBLEMS.get(state, "")
        found = [Finding("hooks", not fix, says, fix)]
    if spooled:
        waiting = counted(spooled, "segment waits", "segments wait")
        found.append(Finding("hook spool", False, f"{waiting} to be sent", "cortex hook flush"))
    return found
