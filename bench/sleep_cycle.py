"""The sleep cycle on a generated graph, and the strongest entities of a namespace at now.

    python bench/sleep_cycle.py [--entities 1000000] [--relations 2000000]
                                [--namespace-size 100000] [--reuse] [--repeat 30]

Uses its own database (`cortex_bench_decay`, on the embedded server or next to
DATABASE_URL's), so nobody else's data is touched. Generates the graph in SQL
(generate_series), then times:
  1. a first sleep cycle (every stored value is new),
  2. the nightly one, a day later, for --nights nights (every value changes;
     crossings recorded),
  3. the last night again (nothing changes),
  4. `entity_strongest` (the 50 strongest of one namespace, evaluated at now),
     against ranking every row of the namespace inline (the plan it avoids).
Targets: sleep cycle < 60 s; strongest 50 < 50 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import machine_describe  # noqa: E402

BENCH_DB = "cortex_bench_decay"
PROJECT = "world:project"


def _bench_database_url() -> str:
    """The URL of `cortex_bench` on the same server as Cortex's database; created if missing."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    from cortex_site import embedded

    base = os.environ.get("DATABASE_URL") or embedded.postgres_url()
    admin = make_conninfo(base, dbname="postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                            [BENCH_DB]).fetchone():
            conn.execute(f'CREATE DATABASE "{BENCH_DB}"')
    info = conninfo_to_dict(base)
    user = info.get("user", "postgres")
    password = f":{info['password']}" if info.get("password") else ""
    host = info.get("host", "localhost")
    port = info.get("port", "5432")
    if host.startswith("/"):
        return f"postgresql://{user}{password}@/{BENCH_DB}?host={host}&port={port}"
    return f"postgresql://{user}{password}@{host}:{port}/{BENCH_DB}"


def _setup() -> None:
    os.environ["DATABASE_URL"] = _bench_database_url()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _sql(statement: str, params: Any = None) -> Any:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.fetchall() if cursor.description else None


def _generate(*, entities: int, relations: int, namespace_size: int, now: Any) -> None:
    from memory.config import config_get
    from memory.models import Namespace
    from memory.services.taxonomy import taxonomy_sync

    taxonomy_sync()
    project = Namespace.objects.get(path=PROJECT).pk
    others = list(Namespace.objects.exclude(pk=project).filter(children__isnull=True)
                  .values_list("pk", flat=True))
    types = list(config_get().graph.relation_types)
    _sql("TRUNCATE memory_entitytransition, memory_relationtransition, memory_relation, "
         "memory_entity, memory_sleepcyclerun RESTART IDENTITY CASCADE")
    _sql("SELECT setseed(0.42)")
    insert = """
        INSERT INTO memory_entity (namespace_id, slug, key, display_name, aliases, memory_type,
            referent, base, half_life_days, valence, pos, neg, retrieval_count,
            last_reinforced_at, pinned, route, status, created_at, updated_at)
        SELECT ns.id, 'e' || g, ns.path || ':e' || g, 'entity ' || g, '{}', ns.memory_type,
            ns.referent, 0.2 + random() * 0.8, ns.half_life_days,
            (ARRAY['neutral','neutral','neutral','positive','negative','critical'])
                [1 + floor(random() * 6)::int],
            floor(random() * 4)::int, floor(random() * 2)::int, floor(random() * 20)::int,
            %(now)s - random() * interval '120 days', random() < 0.0001,
            (ARRAY['dark_matter','normal','normal','normal','fast_lane'])
                [1 + floor(random() * 5)::int],
            CASE WHEN random() < 0.05 THEN 'quarantined' ELSE 'active' END,
            %(now)s - interval '200 days', %(now)s
        FROM generate_series(%(first)s, %(last)s) AS g
        JOIN memory_namespace ns ON ns.id = %(pick)s
    """
    _sql(insert.replace("%(pick)s", "%(project)s"),
         {"now": now, "first": 1, "last": namespace_size, "project": project})
    _sql(insert.replace("%(pick)s", "(%(others)s::bigint[])[1 + g %% %(k)s]"),
         {"now": now, "first": namespace_size + 1, "last": entities, "others": others,
          "k": len(others)})
    # Distinct (source, target) pairs: the i-th edge joins s = i mod n to s + an offset
    # that depends on i div n, so no pair repeats and no edge is a loop.
    _sql("""
        INSERT INTO memory_relation (source_id, target_id, relation_type, relation_class,
            last_reinforced_at, evidence_count, created_at)
        SELECT 1 + s, 1 + (s + 1 + k * 37 + (s * 31) %% 1000) %% %(n)s,
               t.name, t.class, %(now)s - random() * interval '60 days',
               1 + floor(random() * 5)::int, %(now)s - interval '200 days'
        FROM (SELECT i %% %(n)s AS s, i / %(n)s AS k,
                     1 + floor(random() * %(ntypes)s)::int AS pick
              FROM generate_series(0, %(relations)s - 1) AS i) AS e
        JOIN (SELECT row_number() OVER () AS pick, name, class
              FROM unnest(%(types)s::text[], %(classes)s::text[]) AS u(name, class)) AS t
          USING (pick)
    """, {"n": entities, "now": now, "relations": relations, "ntypes": len(types),
          "types": types, "classes": [config_get().graph.class_of(t) for t in types]})
    _sql("VACUUM ANALYZE memory_entity")
    _sql("VACUUM ANALYZE memory_relation")


def _counts() -> tuple[int, int, int]:
    from memory.models import Entity, Namespace, Relation

    project = Namespace.objects.get(path=PROJECT)
    return (Entity.objects.count(), Relation.objects.count(),
            Entity.objects.filter(namespace=project).count())


def _cycle(label: str, now: Any) -> None:
    from memory.services.sleep_cycle import sleep_cycle_run

    started = time.perf_counter()
    run = sleep_cycle_run(now=now, trigger="bench")
    seconds = time.perf_counter() - started
    steps = "; ".join(
        f"{s['name']} {s['duration_ms'] / 1000:.1f} s ("
        + ", ".join(f"{k.split('_', 1)[1]} {v:,}" for k, v in s["counts"].items()) + ")"
        for s in run.steps
    )
    verdict = "OK" if seconds < 60 else "OVER TARGET"
    print(f"sleep cycle, {label}: {seconds:.1f} s [{verdict}, target < 60 s]; {steps}")


def _strongest(repeat: int) -> None:
    from memory import clock
    from memory.models import Namespace
    from memory.selectors.entities import STRENGTH_NOW, entity_strongest, entity_with_strength

    project = Namespace.objects.get(path=PROJECT)

    def inline() -> list[int]:
        rows = entity_with_strength(now=clock.now()).filter(namespace=project, status="active")
        return list(rows.order_by(f"-{STRENGTH_NOW}", "id").values_list("pk", flat=True)[:50])

    def indexed() -> list[int]:
        return [e.pk for e in entity_strongest(namespace=project, now=clock.now(), limit=50)]

    for name, fn in (("entity_strongest (stored bound + index)", indexed),
                     ("every row ranked inline (for comparison)", inline)):
        fn()  # warm the cache
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            fn()
            times.append((time.perf_counter() - started) * 1000)
        verdict = "" if "comparison" in name else (
            " [OK, target < 50 ms]" if statistics.median(times) < 50 else " [OVER TARGET]")
        print(f"strongest 50 of {PROJECT}, {name}: median {statistics.median(times):.1f} ms, "
              f"p95 {sorted(times)[int(len(times) * 0.95) - 1]:.1f} ms{verdict}")
    assert indexed() == inline(), "the indexed ranking differs from the inline one"
    print("  (both rankings are identical)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entities", type=int, default=1_000_000)
    parser.add_argument("--relations", type=int, default=2_000_000)
    parser.add_argument("--namespace-size", type=int, default=100_000)
    parser.add_argument("--reuse", action="store_true", help="keep the graph already generated")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--nights", type=int, default=3, help="nightly runs a day apart")
    args = parser.parse_args()
    print(machine_describe())
    _setup()
    from memory import clock

    version = _sql("SHOW server_version")[0][0]
    print(f"PostgreSQL {version}, database {BENCH_DB}, load average {os.getloadavg()[0]:.2f}")
    now = clock.now()
    if not args.reuse or _counts()[0] == 0:
        started = time.perf_counter()
        _generate(entities=args.entities, relations=args.relations,
                  namespace_size=args.namespace_size, now=now - timedelta(days=args.nights))
        print(f"generated in {time.perf_counter() - started:.1f} s")
    entities, relations, in_project = _counts()
    print(f"graph: {entities:,} entities ({in_project:,} in {PROJECT}), {relations:,} relations")
    nights = max(1, args.nights)
    _cycle("first evaluation", now - timedelta(days=nights))
    for night in range(nights - 1, -1, -1):
        _cycle(f"nightly ({nights - night} day(s) later)", now - timedelta(days=night))
    _cycle("again at the same now", now)
    print("tables: " + ", ".join(f"{name} {size}" for name, size in _sql(
        "SELECT relname, pg_size_pretty(pg_total_relation_size(oid)) FROM pg_class "
        "WHERE relname IN ('memory_entity', 'memory_relation') ORDER BY relname")))
    _strongest(args.repeat)


if __name__ == "__main__":
    main()
