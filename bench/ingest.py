"""Layer 1 ingest over HTTP: events/s in batches of 500, and single-post latency.

    python bench/ingest.py                       # its own gunicorn on the embedded PostgreSQL
    python bench/ingest.py --url http://127.0.0.1:8000 --token TOKEN   # a running Cortex

Without --url it creates a throwaway database `cortex_bench` on the embedded server (the
log is append-only: bench events must not land in the operator's), migrates it, creates an
agent, starts gunicorn as `cortex up` does, measures, then stops it and drops the database.
Targets on a 2-core machine: >= 5,000 events/s in batches; single posts p50 < 10 ms.
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import machine_describe  # noqa: E402
from bench.serving import bodies_post, percentile, web_served  # noqa: E402

BENCH_DB = "cortex_bench"
TEXT = (
    "Refactor the ingest loop so that each batch is one INSERT; keep the offsets with "
    "their events. Then run the tests and report what failed, in English et en français. "
)


def _event(run: str, i: int) -> dict[str, object]:
    return {
        "source_id": f"{run}-{i}",
        "type": "claude-code",
        "subtype": "assistant.text" if i % 3 else "user.prompt",
        "occurred_at": "2026-11-29T12:00:00Z",
        "actor": "claude-code",
        "project": "cortex",
        "correlation": {"session": run, "thread": "", "parent": f"{run}-{i - 1}"},
        "payload": {
            "uuid": str(uuid.uuid4()),
            "cwd": "/home/operator/cortex",
            "message": {
                "role": "assistant",
                "model": "claude-sonnet",
                "content": [{"type": "text", "text": TEXT * (1 + i % 3)}],
                "usage": {"input_tokens": 1200 + i % 50, "output_tokens": 300},
            },
        },
    }


class Client:
    def __init__(self, url: str, token: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.path = parts.path.rstrip("/") + "/api/events/"
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)

    def post(self, body: bytes) -> float:
        started = time.perf_counter()
        try:
            self.conn.request("POST", self.path, body=body, headers=self.headers)
            response = self.conn.getresponse()
            data = response.read()
        except (http.client.HTTPException, OSError):
            self.conn.close()
            raise
        elapsed = time.perf_counter() - started
        if response.status != 201:
            raise RuntimeError(f"HTTP {response.status}: {data[:300]!r}")
        if response.getheader("Connection", "").lower() == "close":
            self.conn.close()
        return elapsed


def _batches(url: str, token: str, *, batches: int, size: int, clients: int) -> float:
    run = uuid.uuid4().hex[:8]
    bodies = [orjson.dumps({"events": [_event(run, b * size + i) for i in range(size)]})
              for b in range(batches)]
    elapsed = bodies_post(lambda: Client(url, token), bodies, clients=clients,
                          what="batch posts")
    return batches * size / elapsed


def _singles(url: str, token: str, *, count: int, warmup: int = 50) -> list[float]:
    run = uuid.uuid4().hex[:8]
    client = Client(url, token)
    for i in range(warmup):
        client.post(orjson.dumps(_event(run + "w", i)))
    return [client.post(orjson.dumps(_event(run, i))) * 1000 for i in range(count)]


def _bench_database_url() -> tuple[str, str]:
    import psycopg

    from cortex_site import embedded

    parts = urlsplit(embedded.postgres_url())
    admin_url = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{BENCH_DB}"')
    return urlunsplit(parts._replace(path=f"/{BENCH_DB}")), admin_url


def _manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=env, cwd=ROOT, capture_output=True, text=True, check=True,
    )
    return done.stdout


@contextmanager
def _own_server(workers: int) -> Iterator[tuple[str, str]]:
    database_url, admin_url = _bench_database_url()
    env = {**os.environ, "DATABASE_URL": database_url, "CORTEX_LOG_LEVEL": "WARNING"}
    try:
        _manage(env, "migrate", "--verbosity", "0")
        output = _manage(
            env, "agent", "create", "bench", "--scopes", "events:write", "--rate", "100000000/min"
        )
        token = output.strip().splitlines()[-1]
        with web_served(env, workers=workers) as url:
            yield url, token
    finally:
        import psycopg

        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')


def _report(url: str, token: str, args: argparse.Namespace, where: str) -> None:
    rate = _batches(url, token, batches=args.batches, size=args.batch_size, clients=args.clients)
    latencies = _singles(url, token, count=args.singles)
    print(f"server: {where}")
    print(
        f"batches: {args.batches} x {args.batch_size} events over HTTP, {args.clients} clients: "
        f"{rate:,.0f} events/s (target >= 5,000)"
    )
    print(
        f"single posts: {len(latencies)} sequential: p50 {percentile(latencies, 0.5):.2f} ms, "
        f"p99 {percentile(latencies, 0.99):.2f} ms, mean {statistics.fmean(latencies):.2f} ms "
        "(target p50 < 10 ms)"
    )
    print(machine_describe())
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"load average (1, 5, 15 min) at the end: {load}; other work on the machine skews it")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running Cortex; default: start one")
    parser.add_argument("--token", help="an agent token with events:write (with --url)")
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--clients", type=int, default=4, help="concurrent batch posters")
    parser.add_argument("--singles", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (own server)")
    args = parser.parse_args()
    if args.url:
        if not args.token:
            parser.error("--url needs --token")
        _report(args.url, args.token, args, args.url)
        return
    with _own_server(args.workers) as (url, token):
        _report(url, token, args, f"gunicorn, {args.workers} sync workers, embedded PostgreSQL")


if __name__ == "__main__":
    main()
