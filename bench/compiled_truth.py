"""The compiled-truth step of the sleep cycle over a generated graph, when 10% changed.

    python bench/compiled_truth.py [--entities 100000] [--changed 0.10] [--reuse]

Uses its own database (`cortex_bench_compiled`, on the embedded server or next to
DATABASE_URL's) and its own compiled directory (a temporary one), so nobody else's data is
touched. Generates in SQL: entities over every leaf namespace, 2 relations, 1 fact, 3
mentions (observations with a raw event each) per entity on average, and memories naming a
fifth of them. Then times:
  1. a first sleep cycle (every entity gets its first version: 100% rendered),
  2. a night later, after a share (--changed) of the entities changed: a third gained a
     fact, a third a relation, a third were recalled (strength moved); target <= 60 s,
  3. the same night again (nothing changed: the selection statement alone).
For each, the compiled-truth step's duration and phases (select, load, render, insert,
files) from the run's record, and what dominates.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import machine_describe  # noqa: E402

BENCH_DB = "cortex_bench_compiled"
TARGET_SECONDS = 60.0


def _bench_database_url() -> str:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    from cortex_site import embedded

    base = os.environ.get("DATABASE_URL") or embedded.postgres_url()
    with psycopg.connect(make_conninfo(base, dbname="postgres"), autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                            [BENCH_DB]).fetchone():
            conn.execute(f'CREATE DATABASE "{BENCH_DB}"')
    info = conninfo_to_dict(base)
    user = info.get("user", "postgres")
    password = f":{info['password']}" if info.get("password") else ""
    host, port = str(info.get("host", "localhost")), str(info.get("port", "5432"))
    if host.startswith("/"):
        return f"postgresql://{user}{password}@/{BENCH_DB}?host={host}&port={port}"
    return f"postgresql://{user}{password}@{host}:{port}/{BENCH_DB}"


def _setup(compiled_dir: str) -> None:
    os.environ["DATABASE_URL"] = _bench_database_url()
    os.environ["CORTEX_COMPILED_DIR"] = compiled_dir
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


_DERIVED = ("memory_compiledtruth, memory_memorymention, memory_memory, memory_entitymention, "
            "memory_observation, memory_fact, memory_regenerationrequest, "
            "memory_entitytransition, memory_relationtransition, memory_relation, "
            "memory_entity, memory_sleepcyclerun")


def _generate(*, entities: int, start: Any) -> None:
    import pgtrigger

    from memory.config import config_get
    from memory.models import Namespace
    from memory.services.taxonomy import taxonomy_sync

    taxonomy_sync()
    leaves = list(Namespace.objects.filter(children__isnull=True).values_list("pk", flat=True))
    types = list(config_get().graph.relation_types)
    with pgtrigger.ignore("memory.MemoryEvent:no_truncate"):
        _sql(f"TRUNCATE {_DERIVED}, memory_memoryevent RESTART IDENTITY CASCADE")
    _sql("SELECT setseed(0.7)")
    params = {"n": entities, "start": start, "leaves": leaves, "k": len(leaves),
              "types": types, "ntypes": len(types)}
    for statement in _STATEMENTS:
        _sql(statement, params)
    for table in ("memory_entity", "memory_relation", "memory_fact", "memory_entitymention",
                  "memory_observation", "memory_memoryevent", "memory_memory",
                  "memory_memorymention"):
        _sql(f"VACUUM ANALYZE {table}")


_STATEMENTS = [
    # Entities: last reinforced within 20 days of the start, all active.
    """INSERT INTO memory_entity (namespace_id, slug, key, display_name, aliases, memory_type,
         referent, base, half_life_days, valence, pos, neg, retrieval_count,
         last_reinforced_at, pinned, route, status, created_at, updated_at)
       SELECT ns.id, 'e' || g, ns.path || ':e' || g, 'Entity ' || g, '{}', ns.memory_type,
         ns.referent, 0.5 + random() * 0.5, ns.half_life_days, 'neutral', 0, 0,
         floor(random() * 5)::int, %(start)s - random() * interval '20 days', false, 'normal',
         'active', %(start)s - interval '30 days', %(start)s
       FROM generate_series(1, %(n)s) g
       JOIN memory_namespace ns ON ns.id = (%(leaves)s::bigint[])[1 + g %% %(k)s]""",
    """INSERT INTO memory_relation (source_id, target_id, relation_type, relation_class,
         last_reinforced_at, evidence_count, created_at)
       SELECT 1 + i %% %(n)s, 1 + (i %% %(n)s + 1 + (i / %(n)s) * 7919) %% %(n)s,
         (%(types)s::text[])[1 + i %% %(ntypes)s], 'normal',
         %(start)s - random() * interval '10 days', 1 + floor(random() * 4)::int,
         %(start)s - interval '30 days'
       FROM generate_series(0, 2 * %(n)s - 1) i""",
    """INSERT INTO memory_memoryevent (id, source, source_id, occurred_at, recorded_at, type,
         subtype, actor, project, correlation_session, correlation_thread,
         correlation_parent, payload, redaction_count)
       SELECT lpad(to_hex(g), 26, '0'), 'bench', 'b' || g,
         %(start)s - (g %% 1000) * interval '1 minute', %(start)s, 'message', 'user', '',
         '', '', '', '', '\\x007b7d', 0
       FROM generate_series(1, 3 * %(n)s + %(n)s / 5) g""",
    """INSERT INTO memory_observation (id, dedup_key, source, timestamp, recorded_at, category,
         actors, topic, sentiment, sentiment_score, payload_typed, correlation_session,
         correlation_thread, correlation_parent, target_namespace, event_ids, status,
         attempts, error, order_key)
       SELECT lpad(to_hex(g), 26, '0'), md5(g::text), 'bench', %(start)s - (g %% 1000)
         * interval '1 minute', %(start)s, 'instruction', '[]', 'did thing ' || g, 'neutral',
         0, '{}', '', '', '', 'world:project', ARRAY[lpad(to_hex(g), 26, '0')], 'retained',
         0, '', ''
       FROM generate_series(1, 3 * %(n)s) g""",
    """INSERT INTO memory_entitymention (entity_id, observation_id, role, reinforced, at)
       SELECT 1 + (g * 7) %% %(n)s, lpad(to_hex(g), 26, '0'), 'subject', true,
         %(start)s - (g %% 1000) * interval '1 minute'
       FROM generate_series(1, 3 * %(n)s) g""",
    """INSERT INTO memory_fact (entity_id, claim, lemma_key, lemmas, polarity, scope, language,
         status, evidence_count, first_seen_at, last_seen_at, event_ids, created_at)
       SELECT 1 + (g * 13) %% %(n)s, 'use tool ' || g, 'tool use ' || g, '{use,tool}', 1, '',
         'en', CASE WHEN g %% 50 = 0 THEN 'contested' ELSE 'active' END, 1, %(start)s,
         %(start)s, ARRAY[lpad(to_hex(g), 26, '0')], %(start)s
       FROM generate_series(1, %(n)s) g""",
    """INSERT INTO memory_memory (event_id, source, source_id, text, actor, project,
         occurred_at, metadata, language, namespace_id, memory_type, referent, base,
         half_life_days, valence, pinned, retrieval_count, last_reinforced_at, embedded,
         created_at)
       SELECT lpad(to_hex(3 * %(n)s + g), 26, '0'), 'api:bench', 'b' || (3 * %(n)s + g),
         'remember that entity ' || g || ' matters', '', '', %(start)s, '{}', 'en',
         (SELECT id FROM memory_namespace WHERE path = 'world:topic'), 'episodic', 'abstract',
         0.6, 30, 'neutral', false, 0, %(start)s, false, %(start)s
       FROM generate_series(1, %(n)s / 5) g""",
    """INSERT INTO memory_memorymention (memory_id, entity_id, role, surface, value)
       SELECT m.id, 1 + (m.id * 5) %% %(n)s, 'project', '', '' FROM memory_memory m""",
]


def _change(*, entities: int, share: float, at: Any) -> int:
    """A share of the entities changed: a fact, a relation, or a recall (a third each)."""
    count = int(entities * share)
    third = count // 3
    params = {"n": entities, "at": at, "third": third, "count": count, "step": 9973}
    _sql("""INSERT INTO memory_fact (entity_id, claim, lemma_key, lemmas, polarity, scope,
              language, status, evidence_count, first_seen_at, last_seen_at, event_ids,
              created_at)
            SELECT 1 + (g * %(step)s) %% %(n)s, 'new claim ' || g, 'claim new ' || g,
              '{new,claim}', 1, '', 'en', 'active', 1, %(at)s, %(at)s, '{}', %(at)s
            FROM generate_series(0, %(third)s - 1) g""", params)
    _sql("""INSERT INTO memory_relation (source_id, target_id, relation_type, relation_class,
              last_reinforced_at, evidence_count, created_at)
            SELECT 1 + (g * %(step)s) %% %(n)s, 1 + (g * %(step)s + 17) %% %(n)s,
              'relates_to', 'normal', %(at)s, 1, %(at)s
            FROM generate_series(%(third)s, 2 * %(third)s - 1) g
            ON CONFLICT DO NOTHING""", params)
    _sql("""UPDATE memory_entity SET retrieval_count = retrieval_count + 3,
              last_reinforced_at = %(at)s, strength = NULL
            WHERE id IN (SELECT 1 + (g * %(step)s) %% %(n)s
                         FROM generate_series(2 * %(third)s, %(count)s - 1) g)""", params)
    return count


def _cycle(label: str, now: Any) -> float:
    from memory.services.sleep_cycle import sleep_cycle_run

    started = time.perf_counter()
    run = sleep_cycle_run(now=now, trigger="bench")
    total = time.perf_counter() - started
    step = next(s for s in run.steps if s["name"] == "compiled_truth")
    seconds = float(step["duration_ms"]) / 1000
    counts = step["counts"]
    phases = {k[len("compiled_"):-3]: v / 1000 for k, v in counts.items() if k.endswith("_ms")}
    verdict = "OK" if seconds <= TARGET_SECONDS else "OVER TARGET"
    dominant = max(phases, key=lambda k: phases[k])
    others = ", ".join(f"{s['name']} {s['duration_ms'] / 1000:.1f} s" for s in run.steps
                       if s["name"] != "compiled_truth")
    print(f"{label}: compiled-truth step {seconds:.1f} s [{verdict}, target <= "
          f"{TARGET_SECONDS:.0f} s]; evaluated {counts['compiled_evaluated']:,}, changed "
          f"{counts['compiled_changed']:,}, written {counts['compiled_written']:,}, files "
          f"{counts['compiled_files']:,}")
    print("  phases: " + ", ".join(f"{k} {v:.1f} s" for k, v in phases.items())
          + f"; dominant: {dominant}")
    print(f"  whole sleep cycle {total:.1f} s (other steps: {others})")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--changed", type=float, default=0.10)
    parser.add_argument("--reuse", action="store_true", help="keep the graph already generated")
    args = parser.parse_args()
    print(machine_describe())
    with tempfile.TemporaryDirectory(prefix="cortex-bench-compiled-") as compiled_dir:
        _setup(compiled_dir)
        from memory import clock

        print(f"PostgreSQL {_sql('SHOW server_version')[0][0]}, database {BENCH_DB}, "
              f"load average {os.getloadavg()[0]:.2f}")
        now = clock.now()
        first, night = now - timedelta(days=1), now - timedelta(hours=12)
        if not args.reuse or not _sql("SELECT count(*) FROM memory_entity")[0][0]:
            started = time.perf_counter()
            _generate(entities=args.entities, start=first)
            print(f"generated in {time.perf_counter() - started:.1f} s")
        sizes = {t: _sql(f"SELECT count(*) FROM memory_{t}")[0][0] for t in (
            "entity", "relation", "fact", "entitymention", "memory", "memorymention")}
        print("graph: " + ", ".join(f"{k} {v:,}" for k, v in sizes.items()))
        _cycle("first sleep cycle (every entity compiled)", first)
        changed = _change(entities=args.entities, share=args.changed, at=night)
        print(f"changed {changed:,} entities ({args.changed:.0%}): facts, relations, recalls")
        _cycle(f"the next night ({args.changed:.0%} changed)", night)
        _cycle("the same night again (nothing changed)", night)
        files = sum(1 for _ in Path(compiled_dir).rglob("*.md"))
        print(f"files on disk: {files:,}; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
