"""Recall quality on planted facts among distractor memories (docs/recall.md).

    python bench/recall_quality.py                      # N = 1,000 and 10,000
    python bench/recall_quality.py --sizes 1000 10000 100000 --plants 40

For each N, on a throwaway database `cortex_bench_recall` of the embedded server: N
distractor memories and `--plants` planted facts (English and French) are remembered, run
through the analyzers and the Retain Job like any memory, embedded by the background pass;
then each planted fact is asked for by a paraphrased question in English and in French
(`unit=memory`, no reinforcement). Prints recall@5 and MRR of the planted memory, with the
ablation (each strategy off, strength weighting off, reciprocal rank fusion instead of
linear), and the same after a sleep cycle (which must not lower them: nothing is deleted).
`--no-embed` skips the embedding pass (and the vector strategy) for large N.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import machine_describe  # noqa: E402
from bench.recall_corpus import Plant, distractors_make, plants_make  # noqa: E402

BENCH_DB = "cortex_bench_recall"
STRATEGIES = ("fulltext", "trigram", "vector", "graph")


def _urls() -> tuple[str, str]:
    from urllib.parse import urlsplit, urlunsplit

    from cortex_site import embedded

    parts = urlsplit(embedded.postgres_url())
    return (urlunsplit(parts._replace(path="/postgres")),
            urlunsplit(parts._replace(path=f"/{BENCH_DB}")))


def _fresh_database() -> str:
    import psycopg

    admin, url = _urls()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{BENCH_DB}"')
    env = {**os.environ, "DATABASE_URL": url}
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v", "0"], env=env,
                   cwd=ROOT, check=True)
    return url


def _load(n: int, plants: list[Plant], seed: int, embed: bool) -> dict[str, float]:
    from insight.services.analysis import analysis_drain
    from memory.services.embeddings import entity_embed_pending
    from memory.services.memories import memories_remember
    from memory.services.memories_embed import memory_embed_pending
    from memory.services.retain import retain_drain
    from memory.services.taxonomy import taxonomy_sync

    taxonomy_sync()
    memories = [{"source_id": p.source_id, "text": p.text} for p in plants]
    memories += distractors_make(n, seed=seed, plants=plants)
    random.Random(seed).shuffle(memories)
    for i, memory in enumerate(memories):
        memory["occurred_at"] = f"2026-{1 + i % 9:02d}-{1 + i % 28:02d}T10:00:00Z"
    times: dict[str, float] = {}
    started = time.perf_counter()
    for i in range(0, len(memories), 1000):
        memories_remember(source="api:bench", memories=memories[i:i + 1000])
    times["remember_s"] = time.perf_counter() - started
    started = time.perf_counter()
    analysis_drain()
    retain_drain(embed=False)
    times["consolidate_s"] = time.perf_counter() - started
    if embed:
        started = time.perf_counter()
        while memory_embed_pending(limit=512):
            pass
        entity_embed_pending()
        times["embed_s"] = time.perf_counter() - started
    return times


def _rank(hits: list[Any], source_id: str) -> int | None:
    for position, hit in enumerate(hits, start=1):
        if any(p.get("source_id") == source_id for p in hit.provenance):
            return position
    return None


def _evaluate(plants: list[Plant], *, label: str, config: Any, strategies: tuple[str, ...],
              use_strength: bool, now: Any) -> dict[str, Any]:
    from memory.services.recall import recall_run

    ranks: dict[str, list[int | None]] = {"en": [], "fr": []}
    started = time.perf_counter()
    for plant in plants:
        for language, question in (("en", plant.question_en), ("fr", plant.question_fr)):
            result = recall_run(query=question, unit="memory", limit=10, reinforce=False,
                                strategies_on=strategies, use_strength=use_strength,
                                now=now, config=config)
            ranks[language].append(_rank(result.hits, plant.source_id))
    elapsed = time.perf_counter() - started
    every = ranks["en"] + ranks["fr"]

    def at5(values: list[int | None]) -> float:
        return sum(1 for r in values if r is not None and r <= 5) / len(values)

    return {"label": label, "recall@5": at5(every), "en@5": at5(ranks["en"]),
            "fr@5": at5(ranks["fr"]),
            "mrr": sum(1 / r for r in every if r is not None) / len(every),
            "ms_per_query": 1000 * elapsed / len(every)}


def _variants(config: Any, embed: bool) -> list[tuple[str, Any, tuple[str, ...], bool]]:
    section = config.recall
    on = tuple(s for s in STRATEGIES if embed or s != "vector")
    variants = [("all strategies", config, on, True)]
    variants += [(f"without {s}", config, tuple(x for x in on if x != s), True) for s in on]
    variants.append(("strength off", config, on, False))
    rrf = dataclasses.replace(config, recall=dataclasses.replace(section, fusion="rrf"))
    variants.append(("rrf k=60 fusion", rrf, on, True))
    return variants


def run_one(n: int, plants_count: int, seed: int, embed: bool) -> dict[str, Any]:
    os.environ["DATABASE_URL"] = _fresh_database()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    import django

    django.setup()
    from datetime import timedelta

    from memory import clock
    from memory.config import config_get
    from memory.services.sleep_cycle import sleep_cycle_run

    plants = plants_make(plants_count, seed=seed)
    times = _load(n, plants, seed, embed)
    config = config_get()
    now = clock.now()
    rows = [_evaluate(plants, label=label, config=cfg, strategies=on, use_strength=strength,
                      now=now)
            for label, cfg, on, strength in _variants(config, embed)]
    later = now + timedelta(days=1)
    sleep_cycle_run(now=later)
    on = tuple(s for s in STRATEGIES if embed or s != "vector")
    rows.append(_evaluate(plants, label="after a sleep cycle", config=config, strategies=on,
                          use_strength=True, now=later))
    return {"n": n, "plants": plants_count, "times": times, "rows": rows}


def _print(result: dict[str, Any]) -> None:
    times = ", ".join(f"{k} {v:.1f}" for k, v in result["times"].items())
    print(f"\nN = {result['n']:,} distractors, {result['plants']} planted facts x 2 languages "
          f"({times})")
    print(f"{'variant':<22} {'recall@5':>9} {'EN@5':>6} {'FR@5':>6} {'MRR':>6} {'ms/q':>7}")
    for row in result["rows"]:
        print(f"{row['label']:<22} {row['recall@5']:>9.3f} {row['en@5']:>6.3f} "
              f"{row['fr@5']:>6.3f} {row['mrr']:>6.3f} {row['ms_per_query']:>7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--plants", type=int, default=40)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--no-embed", action="store_true")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(run_one(args.one, args.plants, args.seed, not args.no_embed)))
        return
    print(machine_describe())
    print(f"load average at start: {os.getloadavg()}")
    for n in args.sizes:
        command = [sys.executable, __file__, "--one", str(n), "--plants", str(args.plants),
                   "--seed", str(args.seed), *(["--no-embed"] if args.no_embed else [])]
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        _print(json.loads(out.strip().splitlines()[-1]))
    print(f"\nload average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
