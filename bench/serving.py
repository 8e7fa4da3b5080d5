"""What the HTTP benchmarks share: a Cortex web server started as `cortex up` starts it,
clients run at once, percentiles, and the CPU the server and PostgreSQL spent (the figure
that survives a machine loaded by others)."""

from __future__ import annotations

import contextlib
import http.client
import os
import queue
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

from memory.serving import web_command

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def healthy_wait(url: str, server: subprocess.Popen[bytes]) -> None:
    parts = urlsplit(url)
    for _ in range(600):
        if server.poll() is not None:
            raise RuntimeError("gunicorn exited; see its output above")
        try:
            conn = http.client.HTTPConnection(parts.hostname or "", parts.port or 80, timeout=2)
            conn.request("GET", "/api/health/")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the server never answered /api/health/")


@contextmanager
def web_served(env: dict[str, str], *, workers: int, threads: int = 1) -> Iterator[str]:
    """The web server `cortex up` runs (threads=1: gunicorn's sync workers), on a free port,
    under `env`; its URL once healthy, stopped on exit."""
    port = free_port()
    server = subprocess.Popen(
        [*web_command(bin_dir=str(Path(sys.executable).parent), bind=f"127.0.0.1:{port}",
                      workers=workers, threads=threads), "--log-level", "warning"],
        env=env, cwd=ROOT)
    try:
        url = f"http://127.0.0.1:{port}"
        healthy_wait(url, server)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:  # a loaded machine: its graceful stop is slow
            server.kill()
            server.wait(30)


def clients_run(work: Callable[[int], None], *, clients: int, what: str) -> float:
    """`work(k)` for k in 0..clients-1, each in a thread of its own, all at once; the wall
    seconds; the first error raised once all are done."""
    errors: list[BaseException] = []

    def guarded(k: int) -> None:
        try:
            work(k)
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    if errors:
        raise RuntimeError(f"{what} failed: {errors[0]}")
    return elapsed


class Poster(Protocol):
    def post(self, body: bytes) -> float: ...


def bodies_post(client: Callable[[], Poster], bodies: Sequence[bytes], *, clients: int,
                what: str) -> float:
    """Every body posted once by `clients` clients taking the next as each is answered; the
    wall seconds."""
    waiting: queue.Queue[bytes] = queue.Queue()
    for body in bodies:
        waiting.put(body)

    def work(_: int) -> None:
        poster = client()
        while True:
            try:
                body = waiting.get_nowait()
            except queue.Empty:
                return
            poster.post(body)

    return clients_run(work, clients=clients, what=what)


def _ticks(fields: list[str], *, children: bool) -> int:
    """utime + stime (and the reaped children's), from /proc/<pid>/stat after the name."""
    return sum(int(value) for value in fields[11:15 if children else 13])


def _stats() -> Iterator[tuple[int, list[str]]]:
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            yield int(stat.parent.name), stat.read_text().rsplit(")", 1)[1].split()


def web_cpu(url: str) -> float | None:
    """User + system seconds of the web server serving `url` so far (its master and live
    workers, found by the bind address on their command line; Linux /proc), else None."""
    bind = urlsplit(url).netloc.encode()
    ticks, found = 0, False
    for pid, fields in _stats():
        with contextlib.suppress(OSError):
            if bind in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0"):
                ticks += _ticks(fields, children=False)
                found = True
    return ticks / os.sysconf("SC_CLK_TCK") if found else None


def postgres_cpu(database: str | None = None) -> float | None:
    """User + system seconds of the embedded PostgreSQL so far: the postmaster, its live
    processes and the backends it reaped (Linux /proc); None elsewhere. With `database`,
    only the live backends connected to it (others may share the server: a web worker's
    connection is persistent, so its backend lives through a run)."""
    from cortex_site import embedded

    try:
        pid = int((embedded.cortex_home() / "pgdata" / "postmaster.pid").read_text().split()[0])
        ticks = 0 if database else _ticks(
            Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split(), children=True)
    except (OSError, IndexError, ValueError):
        return None
    ticks += sum(_ticks(fields, children=False) for child, fields in _stats()
                 if int(fields[1]) == pid and (database is None
                                               or _backend_of(child) == database))
    return ticks / os.sysconf("SC_CLK_TCK")


def _backend_of(pid: int) -> str | None:
    """The database a PostgreSQL backend serves, from its process title ('postgres: user
    database host state')."""
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").split()
    except OSError:
        return None
    return words[2].decode() if len(words) > 2 and words[0] == b"postgres:" else None


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def percentiles_text(times: list[float], unit: str = "") -> str:
    """p50, p99 and max of `times` (seconds) in ms, over how many."""
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (f"p50 {statistics.median(ordered) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
            f"max {ordered[-1] * 1000:.1f} ms over {len(ordered)}{unit}")


def machine_cpu() -> tuple[float, float]:
    """Busy and total CPU seconds of the whole machine so far, every core summed (Linux
    /proc/stat; busy excludes idle and iowait); (0, 0) elsewhere."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(value) for value in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return 0.0, 0.0
    tick = os.sysconf("SC_CLK_TCK")
    total = sum(fields[:8])
    return (total - fields[3] - fields[4]) / tick, total / tick
