"""Recall latency over HTTP on a large graph against the query's encoding time, the recall
rate four clients get against what the CPU a recall costs allows, and the hooks' latency.

    python bench/recall_latency.py                 # generate the graph (a few minutes), measure
    python bench/recall_latency.py --reuse         # keep the graph generated last time

On a throwaway database `cortex_bench_latency` of the embedded server: a graph of 100,000
entities (varied names, alias rows, facts), 500,000 relations, 200,000 memories with their
mentions, and synthetic embeddings (random unit vectors, not a model's, and learned sparse
vectors shaped like the model's: bench/recall_graph.py, bench/recall_sparse.py; the
strategies' costs are real, their results are not). A graph kept from before memories had
sparse vectors gets them. Served by gunicorn as `cortex up` serves it (web_command,
memory/serving.py; --workers and --threads to compare), every strategy on unless
--without names some. The sparse HNSW index (on each memory's 64 heaviest terms) takes
several times as long to build as the dense one: `--without sparse` measures the rest
without building it.

Issue 24's targets ("Fast"), for `unit=memory` and `unit=entity` each:
- one client, each query's encoders (memory.services.recall.query_encoders: the dense
  'vector' and the 'sparse' one) timed bare in this process right before its recall is
  sent: recall p50 <= encoding p50 + 15 ms, p99 <= encoding p99 + 50 ms. A recall runs its
  encoders in parallel threads, so the encoding is the longest of those the unit runs, per
  query (unit=memory: both; unit=entity: the dense one);
- four clients, each sending its next recall once the last is answered: recalls/s >=
  0.8 x 2 cores / the CPU seconds a recall costs (the web server's and PostgreSQL's CPU over
  the run, from /proc, divided by the recalls);
- the UserPromptSubmit hook, the plugin's launcher in a new process per call as Claude Code
  runs it (bench/hook_latency.py), on prompts no recall of the run asked before, in projects
  Cortex knows (an event of each is posted first: context assembly recalls nothing for a
  project it has never seen): p95 <= 200 ms; SessionStart p95 <= 1.5 s. UserPromptSubmit
  again on the prompts operators typed in the public Claude Code transcripts (read from
  ../shared/fixtures/claude-code when present): real lengths, where a generated query is a
  few words.
Every figure is printed with the load average (the machine is shared); then, in this process,
each statement's share of a recall, and EXPLAIN ANALYZE of the heaviest.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.hook_latency import fixture_prompts, hook_timed  # noqa: E402
from bench.machine import machine_describe, machine_speed  # noqa: E402
from bench.recall_graph import (  # noqa: E402
    Names,
    Sizes,
    compiled_generate,
    graph_generate,
    graph_names,
    indexes_ensure,
    sparse_fill,
)
from bench.recall_profile import dominant_print  # noqa: E402
from bench.serving import (  # noqa: E402
    clients_run,
    machine_cpu,
    percentile,
    postgres_cpu,
    web_cpu,
    web_served,
)
from insight.hooks.context import MIN_PROMPT_CHARS, PROMPT_QUERY_CHARS  # noqa: E402

BENCH_DB = "cortex_bench_latency"


# ---- the database and the graph --------------------------------------------------------

def _database_url(fresh: bool, name: str = BENCH_DB) -> str:
    import psycopg

    from cortex_site import embedded

    parts = urlsplit(embedded.postgres_url())
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                              [name]).fetchone()
        if fresh and exists:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        if fresh or not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(parts._replace(path=f"/{name}"))


def _setup(*, reuse: bool, sizes: Sizes, database: str = BENCH_DB,
           sparse: bool = True) -> tuple[str, Names, str]:
    """The bench database, migrated and holding the graph; the names; an agent token."""
    url = _database_url(fresh=not reuse, name=database)
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
        started = time.perf_counter()
        if sparse_fill():
            print(f"sparse vectors added in {time.perf_counter() - started:.0f} s", flush=True)
        indexes_ensure(sparse=sparse)
    else:
        started = time.perf_counter()
        names = graph_generate(sizes=sizes, now=clock.now(), sparse=sparse)
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
        cursor.execute("SELECT count(sparse), count(context_sparse), count(context_vector), "
                       "round(avg(pg_column_size(sparse))) FROM memory_memoryembedding")
        sparse, context_sparse, context_vector, size = cursor.fetchone()
    print("graph: " + ", ".join(f"{k} {v:,}" for k, v in counts.items())
          + " (dense vectors synthetic: random unit vectors)")
    print(f"memories' sparse vectors {sparse:,} ({size} bytes each on average), in the "
          f"context of a previous turn {context_sparse:,} sparse and {context_vector:,} dense")
    print(version)


# ---- the query set ---------------------------------------------------------------------

def _misspell(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, max(2, len(word) - 1))
    swaps = {"s": "z", "c": "k", "i": "y", "e": "a", "o": "au", "k": "c", "ph": "f"}
    letter = word[i]
    return word[:i] + swaps.get(letter, letter + letter) + word[i + 1:]


def queries_make(names: Names, *, count: int, seed: int = 3) -> list[str]:
    """`count` distinct queries: names, misspelled names, English phrases and French ones,
    in about equal shares."""
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
    made: dict[str, None] = {}  # distinct: a web worker keeps a query's encodings
    i = 0
    while len(made) < count:
        made.setdefault(makers[i % len(makers)](), None)
        i += 1
    return list(made)


def _config_without(strategies: Sequence[str]) -> Path:
    config = yaml.safe_load((ROOT / "config" / "decay.yaml").read_text())
    config["recall"]["strategies"] = [s for s in config["recall"]["strategies"]
                                      if s not in strategies]
    path = Path(tempfile.gettempdir()) / f"cortex-bench-recall-{os.getpid()}.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False))
    return path


# ---- the server ------------------------------------------------------------------------

@contextmanager
def _server(database_url: str, workers: int, threads: int) -> Iterator[str]:
    env = {**os.environ, "DATABASE_URL": database_url, "CORTEX_LOG_LEVEL": "WARNING"}
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
        try:
            return self._sent(request)
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            # gunicorn closes a connection idle for 2 s (its keep-alive): that request was
            # never read; sent again on a new connection, timed from there
            self.conn.close()
            return self._sent(request)

    def _sent(self, request: Request) -> float:
        started = time.perf_counter()
        self.conn.request(request.method, request.path, body=request.body,
                          headers=self.headers)
        response = self.conn.getresponse()
        data = response.read()
        elapsed = time.perf_counter() - started
        if response.status != 200:
            raise RuntimeError(f"{request.path[:80]}: HTTP {response.status}: {data[:300]!r}")
        return elapsed * 1000


def recall_request(query: str, unit: str) -> Request:
    return Request("GET", f"/api/recall/?q={quote(query)}&limit=10&unit={unit}")


@dataclass
class Run:
    """A load run: each latency (ms), requests per second, the CPU seconds a request cost
    the web server and PostgreSQL's backends of the bench database (None where /proc cannot
    tell), and the share of the machine's cores busy over the run (anyone's work)."""

    latencies: list[float]
    rate: float
    web_s: float | None
    postgres_s: float | None
    busy: float

    @property
    def cpu_s(self) -> float | None:
        return None if self.web_s is None or self.postgres_s is None else (
            self.web_s + self.postgres_s)


def _per_request(before: float | None, after: float | None, requests: int) -> float | None:
    return None if before is None or after is None else (after - before) / requests


def load_run(url: str, token: str, requests: Sequence[Request], *, clients: int,
             database: str) -> Run:
    """Each client sends its share back to back."""
    latencies: list[list[float]] = [[] for _ in range(clients)]

    def work(k: int) -> None:
        client = Client(url, token)
        for request in requests[k::clients]:
            latencies[k].append(client.send(request))

    web, postgres, (busy, total) = web_cpu(url), postgres_cpu(database), machine_cpu()
    elapsed = clients_run(work, clients=clients, what="requests")
    busy_after, total_after = machine_cpu()
    every = [value for values in latencies for value in values]
    return Run(every, len(every) / elapsed, _per_request(web, web_cpu(url), len(every)),
               _per_request(postgres, postgres_cpu(database), len(every)),
               (busy_after - busy) / max(total_after - total, 1e-9))


def _cpu_text(run: Run) -> str:
    if run.web_s is None or run.postgres_s is None or run.cpu_s is None:
        return "CPU a request: unknown (no /proc)"
    return (f"CPU a request: web {run.web_s * 1000:.1f} + PostgreSQL "
            f"{run.postgres_s * 1000:.1f} = {run.cpu_s * 1000:.1f} ms")


def _load() -> str:
    return "load " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def _ms(values: Sequence[float]) -> str:
    return (f"p50 {percentile(list(values), 0.5):6.1f} ms  p99 "
            f"{percentile(list(values), 0.99):6.1f} ms")


# ---- one client: recall against the query's encoding -----------------------------------

# The encoders a recall of each unit runs (memory/services/recall.py: unit=memory both,
# unit=entity the dense one), in parallel threads: it waits for the longest.
UNIT_ENCODERS = {"memory": ("vector", "sparse"), "entity": ("vector",)}
P50_OVER, P99_OVER = 15.0, 50.0


@dataclass
class Paired:
    """Per query: each encoder's bare time (ms), and the recall's over HTTP (ms)."""

    encoders: dict[str, list[float]]
    recall: Run
    encoders_cpu: dict[str, list[float]]  # the same in CPU ms (the thread's)


def paired_run(url: str, token: str, queries: Sequence[str], *, unit: str,
               database: str) -> Paired:
    """One client: each query's encoders timed bare in this process, then its recall sent.
    The encoders' caches hold only what they encoded (the queries are distinct), and this
    process's caches are not the server's."""
    from memory.services.recall import query_encoders

    encoders = query_encoders()
    times: dict[str, list[float]] = {name: [] for name in encoders}
    cpu: dict[str, list[float]] = {name: [] for name in encoders}
    client = Client(url, token)
    latencies: list[float] = []
    web, postgres, (busy, total) = web_cpu(url), postgres_cpu(database), machine_cpu()
    started = time.perf_counter()
    for query in queries:
        for name, encode in encoders.items():
            began, began_cpu = time.perf_counter(), time.thread_time()
            encode(query)
            times[name].append((time.perf_counter() - began) * 1000)
            cpu[name].append((time.thread_time() - began_cpu) * 1000)
        latencies.append(client.send(recall_request(query, unit)))
    elapsed = time.perf_counter() - started
    busy_after, total_after = machine_cpu()
    run = Run(latencies, len(latencies) / elapsed,
              _per_request(web, web_cpu(url), len(latencies)),
              _per_request(postgres, postgres_cpu(database), len(latencies)),
              (busy_after - busy) / max(total_after - total, 1e-9))
    return Paired(times, run, cpu)


def paired_print(paired: Paired, *, unit: str) -> dict[str, float]:
    """The recall's percentiles beside each encoder's and the longest's; the verdict against
    the longest of those the unit runs."""
    encoders = paired.encoders
    runs = [name for name in UNIT_ENCODERS[unit] if name in encoders]
    longest = [max(values) for values in zip(*(encoders[n] for n in runs), strict=True)]
    every = [max(values) for values in zip(*encoders.values(), strict=True)]
    recall = paired.recall.latencies
    p50, p99 = percentile(recall, 0.5), percentile(recall, 0.99)
    e50, e99 = percentile(longest, 0.5), percentile(longest, 0.99)
    ok = p50 <= e50 + P50_OVER and p99 <= e99 + P99_OVER
    print(f"unit={unit}, 1 client, {len(recall)} distinct queries ({_load()}):")
    for name, values in encoders.items():
        cpu = paired.encoders_cpu[name]
        print(f"  encoder {name:<24} {_ms(values)}  (bare, this process, one thread; CPU "
              f"p50 {percentile(cpu, 0.5):.1f} ms, mean {sum(cpu) / len(cpu):.1f} ms)")
    print(f"  longest of {'+'.join(encoders):<19} {_ms(every)}")
    print(f"  recall over HTTP           {_ms(recall)}  {_cpu_text(paired.recall)}; "
          f"cores busy {paired.recall.busy:.0%}")
    print(f"  [{'OK' if ok else 'MISSES'}: against the longest of {'+'.join(runs)} (the "
          f"encoders unit={unit} runs): p50 {p50:.1f} <= {e50:.1f} + {P50_OVER:.0f} = "
          f"{e50 + P50_OVER:.1f} ms, p99 {p99:.1f} <= {e99:.1f} + {P99_OVER:.0f} = "
          f"{e99 + P99_OVER:.1f} ms; over the encoding: p50 +{p50 - e50:.1f} ms, "
          f"p99 +{p99 - e99:.1f} ms]", flush=True)
    return {"p50": p50, "p99": p99, "encoding_p50": e50, "encoding_p99": e99}


# ---- four clients: the rate the CPU allows ---------------------------------------------

CORES_SHARE = 0.8


def rate_measure(url: str, token: str, queries: Sequence[str], *, unit: str,
                 clients: int, database: str) -> None:
    run = load_run(url, token, [recall_request(q, unit) for q in queries], clients=clients,
                   database=database)
    cores = os.cpu_count() or 1
    line = (f"unit={unit}, {clients} clients, {len(run.latencies)} recalls ({_load()}): "
            f"{run.rate:.2f} recalls/s, {_ms(run.latencies)}; {_cpu_text(run)}; cores busy "
            f"{run.busy:.0%} (anyone's work)")
    if run.cpu_s:
        wanted = CORES_SHARE * cores / run.cpu_s
        verdict = "OK" if run.rate >= wanted else "MISSES"
        line += (f"\n  [{verdict}: recalls/s {run.rate:.2f} >= {CORES_SHARE} x {cores} / "
                 f"{run.cpu_s:.3f} s = {wanted:.2f}; this server's share of the cores over "
                 f"the run {run.rate * run.cpu_s / cores:.0%}]")
    print(line, flush=True)


# ---- hooks -----------------------------------------------------------------------------

HOOK_TARGETS = {"UserPromptSubmit": 0.2, "SessionStart": 1.5}


def projects_known(url: str, token: str, projects: Sequence[str]) -> None:
    """One event of each project, as its first session would have left (idempotent)."""
    events = [{"source_id": f"bench-project-{project}", "type": "note", "project": project,
               "payload": {"text": f"work on {project}"}} for project in projects]
    client = Client(url, token)
    client.conn.request("POST", "/api/events/", body=json.dumps({"events": events}),
                        headers=client.headers)
    response = client.conn.getresponse()
    if response.status != 201:
        raise RuntimeError(f"/api/events/: HTTP {response.status}: {response.read()[:300]!r}")
    response.read()


def hooks_measure(url: str, token: str, queries: Sequence[str], projects: Sequence[str], *,
                  runs: int) -> None:
    """Each hook over `runs` calls on generated prompts (a few words); UserPromptSubmit again on
    the public transcripts' own prompts, when ../shared has them."""
    projects_known(url, token, projects)
    # Sessions of their own: a session already given its context would be given nothing.
    run = time.time_ns()
    generated = [query + " please, with the details" for query in queries]
    # every typed prompt the hook would send (a shorter one asks for nothing)
    typed = [p for p in fixture_prompts() if len(p) >= MIN_PROMPT_CHARS]
    cases = [(event, target, generated[:runs], "") for event, target in HOOK_TARGETS.items()]
    if typed:
        lengths = sorted(len(p) for p in typed)
        cases.append(("UserPromptSubmit", HOOK_TARGETS["UserPromptSubmit"], typed,
                      f" on the public transcripts' {len(typed)} typed prompts (median "
                      f"{lengths[len(lengths) // 2]} characters, longest {lengths[-1]}; the "
                      f"hook sends the first {PROMPT_QUERY_CHARS})"))
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "CORTEX_HOME": home, "CORTEX_URL": url, "CORTEX_TOKEN": token}
        for k, (event, target, prompts, described) in enumerate(cases):
            # Untimed: the first call compiles the hook's bytecode (pip does so at install;
            # measured: 195 ms against 44) and opens a web worker's context path.
            hook_timed(event, {"session_id": f"hook-{event}-{run}-{k}-warm", "cwd": "/home/op/x",
                               "prompt": "a warm-up prompt"}, env)
            times, printed = [], 0
            for i, prompt in enumerate(prompts):
                hook_input: dict[str, object] = {
                    "session_id": f"hook-{event}-{run}-{k}-{i}",
                    "cwd": f"/home/op/{projects[i % len(projects)]}",
                    "prompt": prompt}
                seconds, out = hook_timed(event, hook_input, env)
                times.append(seconds)
                printed += bool(out.strip())
            p95 = percentile(times, 0.95)
            verdict = "OK" if p95 <= target else "MISSES"
            print(f"  {event:<18} p50 {percentile(times, 0.5) * 1000:5.0f} ms  p95 "
                  f"{p95 * 1000:5.0f} ms  max {max(times) * 1000:5.0f} ms over {len(times)}"
                  f"{described} ({_load()})  [{verdict}: p95 <= {target * 1000:.0f} ms]; "
                  f"printed a context {printed}/{len(times)}", flush=True)


# ---- main ------------------------------------------------------------------------------

def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reuse", action="store_true", help="keep the graph generated before")
    parser.add_argument("--database", default=BENCH_DB,
                        help="the embedded server's database the graph is kept in")
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--relations", type=int, default=500_000)
    parser.add_argument("--memories", type=int, default=200_000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--requests", type=int, default=200,
                        help="recalls per unit, one client and again with --clients")
    parser.add_argument("--workers", type=int, default=None,
                        help="gunicorn workers (default: as cortex up)")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads per worker (default: as cortex up)")
    parser.add_argument("--hook-runs", type=int, default=40)
    parser.add_argument("--profile-queries", type=int, default=30)
    parser.add_argument("--units", nargs="+", default=["memory", "entity"],
                        choices=["memory", "entity"])
    parser.add_argument("--without", nargs="*", default=[],
                        help="strategies left out (a copy of config/decay.yaml, for the "
                             "server and this process); without sparse, its HNSW index is "
                             "not built when missing")
    return parser.parse_args()


def main() -> None:
    args = _arguments()
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # as cortex_site/wsgi.py sets it
    print(machine_describe())
    print(machine_speed(), flush=True)
    sizes = Sizes(entities=args.entities, relations=args.relations, memories=args.memories)
    if args.without:
        os.environ["CORTEX_CONFIG"] = str(_config_without(args.without))
        print(f"strategies left out: {', '.join(args.without)}")
    database_url, names, token = _setup(reuse=args.reuse, sizes=sizes,
                                         database=args.database,
                                         sparse="sparse" not in args.without)
    _sizes_print()
    n, warmup = args.requests, 4 * args.clients
    queries = queries_make(names, count=warmup + 2 * n * len(args.units) + args.hook_runs
                           + args.profile_queries)
    projects = names.by_kind["world:project"][:50]
    from memory.services.recall import query_encoders
    from memory.serving import WEB_THREADS, WEB_WORKERS

    for encode in query_encoders().values():  # the models load once, not in a timing
        encode("warm-up")
    workers, threads = args.workers or WEB_WORKERS, args.threads or WEB_THREADS
    from memory.config import config_get

    section = config_get().recall
    assert section is not None
    print(f"\nstrategies {', '.join(section.strategies)} (gunicorn, {workers} workers x "
          f"{threads} threads):", flush=True)
    with _server(database_url, workers, threads) as url:
        load_run(url, token, [recall_request(q, unit) for q in queries[:warmup]
                              for unit in args.units], clients=args.clients,
                 database=args.database)
        at = warmup
        for unit in args.units:
            paired_print(paired_run(url, token, queries[at:at + n], unit=unit,
                                    database=args.database), unit=unit)
            at += n
        for unit in args.units:
            rate_measure(url, token, queries[at:at + n], unit=unit, clients=args.clients,
                         database=args.database)
            at += n
        if args.hook_runs:
            print("hooks (the plugin's launcher, a new process per call, as Claude Code runs "
                  "them):")
            # Prompts of queries no recall above asked: their words' trigram rows and
            # statistics are not cached yet (those of the recalls above made the hooks
            # ~100 ms faster at p50 than a new prompt).
            hooks_measure(url, token, queries[at:at + args.hook_runs], projects,
                          runs=args.hook_runs)
            at += args.hook_runs
    if args.profile_queries:
        print(f"\nwhat dominates, in this process ({_load()}):")
        for unit in args.units:
            dominant_print(queries[at:at + args.profile_queries],
                           unit="memory" if unit == "memory" else "entity")
    print(f"at the end: {machine_speed()}")


if __name__ == "__main__":
    main()
