"""NATS request-reply recall (`cortex nats`) and outbox publishing (docs/nats.md).

    python bench/nats_latency.py                 # 2,000 memories, 500 requests
    python bench/nats_latency.py --requests 100  # a quick look

Needs a NATS server with JetStream (NATS_URL, default nats://127.0.0.1:4222). On a
throwaway database `cortex_bench_nats` of the embedded server: `--memories` free-text
memories, consolidated in this process without vectors; a responder (`manage.py nats`, its
own subject prefix and stream so that nothing else on the server answers or reads); then one
client, sequential requests, each a recall with a varied query, timed from the request to its
reply (the service time plus the bus), each followed by the same recall called in this
process (the service time alone).
Then `--publish` observations stored and the outbox drained onto JetStream, timed. Prints
the machine, p50 and p99.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.databases import database_recreate, database_urls, manage  # noqa: E402
from bench.machine import machine_describe  # noqa: E402
from bench.recall_notes import QUERIES, notes_seed  # noqa: E402
from bench.serving import percentiles_text  # noqa: E402

BENCH_DB = "cortex_bench_nats"


def _config(directory: Path, prefix: str, stream: str) -> Path:
    text = (ROOT / "config" / "decay.yaml").read_text()
    text = re.sub(r"(?m)^  prefix: .*$", f"  prefix: {prefix}", text, count=1)
    text = re.sub(r"(?m)^  stream: .*$", f"  stream: {stream}", text, count=1)
    path = directory / "decay.yaml"
    path.write_text(text)
    return path


def _in_process(query: str) -> float:
    from memory.queries import recall_answer

    data: dict[str, Any] = {"q": query, "unit": "entity", "namespace": "", "project": "",
                            "actor": "", "limit": 10, "include_faded": False,
                            "reinforce": True}
    started = time.perf_counter()
    recall_answer(data)
    return time.perf_counter() - started


async def _requests(url: str, subject: str, token: str, count: int,
                    seed: int) -> tuple[list[float], list[float]]:
    """Each query over the bus, then the same in this process (interleaved: the load of the
    shared machine weighs on both alike)."""
    import nats
    import orjson

    rng = random.Random(seed)
    client = await nats.connect(url)
    headers = {"Authorization": f"Token {token}"}
    bus, local = [], []
    try:
        for n in range(count + 5):  # five to warm up
            query = rng.choice(QUERIES)
            started = time.perf_counter()
            reply = await client.request(subject, orjson.dumps({"q": query, "limit": 10}),
                                         timeout=30, headers=headers)
            elapsed = time.perf_counter() - started
            if (reply.headers or {}).get("Cortex-Status") != "200":
                raise RuntimeError(reply.data.decode()[:300])
            in_process = await asyncio.to_thread(_in_process, query)
            if n >= 5:
                bus.append(elapsed)
                local.append(in_process)
    finally:
        await client.close()
    return bus, local


async def _floor(url: str, subject: str, count: int) -> list[float]:
    """Requests refused before any query (no token): the bus, the responder's thread hop and
    the error mapping, without the service."""
    import nats

    client = await nats.connect(url)
    times = []
    try:
        for _ in range(count):
            started = time.perf_counter()
            reply = await client.request(subject, b'{"q": "x"}', timeout=30)
            times.append(time.perf_counter() - started)
            if (reply.headers or {}).get("Cortex-Status") != "401":
                raise RuntimeError(reply.data.decode()[:300])
    finally:
        await client.close()
    return times


def _responder(env: dict[str, str]) -> subprocess.Popen[str]:
    process = subprocess.Popen([sys.executable, str(ROOT / "manage.py"), "nats"], env=env,
                               cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    if "ready" not in line:
        process.kill()
        raise RuntimeError(f"the responder did not start: {line!r}")
    return process


def _publish(count: int) -> tuple[float, int]:
    """`count` observations stored (outbox filled, no task queued), then drained: seconds."""
    import memory.services.observations as observations
    import memory.services.outbox as outbox
    from memory.nats.publisher import observation_publisher

    setattr(outbox, "task_enqueue", lambda *args, **kwargs: None)  # noqa: B010
    setattr(observations, "retain_enqueue", lambda **kwargs: None)  # noqa: B010
    batch = [{"source": "bench:nats", "category": "fact",
              "timestamp": "2026-11-20T12:00:00+00:00", "target_namespace": "world:concept",
              "payload_typed": {"subject": "bench", "text": f"observation {i}"}}
             for i in range(count)]
    for start in range(0, count, 1000):
        observations.observation_submit_many(observations=batch[start:start + 1000],
                                             check_events=False)
    started = time.perf_counter()
    published = 0
    with observation_publisher() as publish:
        while True:
            report = outbox.outbox_drain(publish=publish)
            published += report.published
            if report.failed or not report.more:
                break
    return time.perf_counter() - started, published


async def _stream_delete(url: str, stream: str) -> None:
    import nats

    client = await nats.connect(url)
    try:
        await client.jetstream().delete_stream(stream)
    except Exception:
        pass
    finally:
        await client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--publish", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(machine_describe())
    print("load average (1, 5, 15 min) at the start: "
          + ", ".join(f"{value:.2f}" for value in os.getloadavg()))
    nats_url = os.environ.get("NATS_URL") or "nats://127.0.0.1:4222"
    tag = secrets.token_hex(4)
    prefix, stream = f"cortexbench.{tag}", f"CORTEX_BENCH_{tag.upper()}"
    admin, database_url = database_urls(BENCH_DB)
    database_recreate(admin, BENCH_DB)
    with tempfile.TemporaryDirectory() as directory:
        os.environ.update(DATABASE_URL=database_url, CORTEX_LOG_LEVEL="WARNING",
                          NATS_URL=nats_url,
                          CORTEX_CONFIG=str(_config(Path(directory), prefix, stream)))
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
        env = {**os.environ}
        manage(env, "migrate", "--verbosity", "0")
        manage(env, "taxonomy", "sync")
        import django

        django.setup()
        started = time.perf_counter()
        notes_seed(args.memories, args.seed)
        print(f"graph: {args.memories:,} memories consolidated in "
              f"{time.perf_counter() - started:.1f} s")
        token = manage(env, "agent", "create", "bench-nats", "--scopes",
                        "recall:read").strip().splitlines()[-1]
        responder = _responder(env)
        try:
            subject = f"{prefix}.memory.query.recall"
            floor = asyncio.run(_floor(nats_url, subject, args.requests))
            bus, local = asyncio.run(_requests(nats_url, subject, token, args.requests,
                                               args.seed))
        finally:
            responder.terminate()
            responder.wait(30)
        print(f"NATS request-reply recall (one client, sequential): {percentiles_text(bus)}")
        print(f"the same recalls in process (no bus, interleaved): {percentiles_text(local)}")
        print(f"the bus alone (a request refused before any query): {percentiles_text(floor)}")
        try:
            seconds, published = _publish(args.publish)
            print(f"outbox: {published:,} observations (the {args.publish:,} stored for it and "
                  f"the seeding's) published on JetStream in {seconds:.2f} s "
                  f"({published / seconds:,.0f}/s, each ack awaited)")
        finally:
            asyncio.run(_stream_delete(nats_url, stream))


if __name__ == "__main__":
    main()
