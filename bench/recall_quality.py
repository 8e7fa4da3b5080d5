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
`--vector-weights 0.6 1` adds a row per weight of the vector strategy. `--reuse` keeps each
corpus's database (one per size, seed and --no-embed) for the next run: the
embedding pass is the long part.

`--conversations`: long multi-session conversations between invented people
(bench/conversation_corpus.py), each turn posted as a memory with its turn id as
`source_id`; questions (single-hop, multi-hop, temporal) scored by recall@5 and @10 of their
evidence turns, with the same ablation. `--bare-turns` posts each turn's text without its
speaker's name (the speaker is only the memory's actor), as most conversation datasets do.
Then the share of the evidence turns each question's context block quotes (context assembly
on the same recall, asked the day after the last turn).
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

from bench.conversation_corpus import Question, conversations_make  # noqa: E402
from bench.databases import database_recreate, database_urls, manage  # noqa: E402
from bench.machine import machine_describe  # noqa: E402
from bench.recall_corpus import Plant, distractors_make, plants_make  # noqa: E402

BENCH_DB = "cortex_bench_recall"
STRATEGIES = ("fulltext", "trigram", "vector", "sparse", "graph")
ENCODED = ("vector", "sparse")  # the strategies --no-embed leaves out


def _fresh_database(database: str = BENCH_DB) -> str:
    admin, url = database_urls(database)
    database_recreate(admin, database)
    manage({**os.environ, "DATABASE_URL": url}, "migrate", "-v", "0")
    return url


def _database(database: str, reuse: bool) -> tuple[str, bool]:
    """(the bench database's URL, whether it already holds this corpus): with `reuse`, a
    database left by an earlier run with the same name is kept (and migrated)."""
    admin, url = database_urls(database)
    if reuse and _exists(admin, database):
        manage({**os.environ, "DATABASE_URL": url}, "migrate", "-v", "0")
        return url, True
    return _fresh_database(database), False


def _complete(count: int, embed: bool, database: str) -> bool:
    """Whether a kept database holds the whole corpus (an interrupted run leaves a part of
    it); if not, it is made anew, empty."""
    from django.db import connection

    from memory.models import Memory

    done = Memory.objects.count() == count and not (
        embed and Memory.objects.filter(embedded=False).exists())
    if not done:
        connection.close()
        _fresh_database(database)
    return done


def _exists(admin: str, database: str) -> bool:
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                            [database]).fetchone() is not None


def _consolidate(memories: list[dict[str, Any]], embed: bool) -> dict[str, float]:
    from django.db import connection

    from insight.services.analysis import analysis_drain
    from memory.services.embeddings import entity_embed_pending
    from memory.services.memories import memories_remember
    from memory.services.memories_embed import memory_embed_pending
    from memory.services.retain import retain_drain
    from memory.services.taxonomy import taxonomy_sync

    taxonomy_sync()
    times: dict[str, float] = {}
    started = time.perf_counter()
    for i in range(0, len(memories), 1000):
        memories_remember(source="api:bench", memories=memories[i:i + 1000])
    times["remember_s"] = time.perf_counter() - started
    started = time.perf_counter()
    analysis_drain()
    retain_drain(embed=False)
    times["consolidate_s"] = time.perf_counter() - started
    with connection.cursor() as cursor:  # the statistics BM25's idf reads, as autovacuum
        cursor.execute("ANALYZE")        # makes them soon after a bulk load
    if embed:
        started = time.perf_counter()
        while memory_embed_pending(limit=512):
            pass
        entity_embed_pending()
        times["embed_s"] = time.perf_counter() - started
    return times


def _planted(n: int, plants: list[Plant], seed: int) -> list[dict[str, Any]]:
    memories: list[dict[str, Any]] = [{"source_id": p.source_id, "text": p.text}
                                      for p in plants]
    memories += distractors_make(n, seed=seed, plants=plants)
    random.Random(seed).shuffle(memories)
    for i, memory in enumerate(memories):
        memory["occurred_at"] = f"2026-{1 + i % 9:02d}-{1 + i % 28:02d}T10:00:00Z"
    return memories


def _rank(hits: list[Any], source_id: str) -> int | None:
    for position, hit in enumerate(hits, start=1):
        if any(p.get("source_id") == source_id for p in hit.provenance):
            return position
    return None


def _evaluate(plants: list[Plant], *, label: str, config: Any, strategies: tuple[str, ...],
              use_strength: bool, now: Any) -> dict[str, Any]:
    from memory.services.recall import recall_run

    ranks: dict[str, list[int | None]] = {"en": [], "fr": [], "same": [], "cross": []}
    started = time.perf_counter()
    for plant in plants:
        for language, question in (("en", plant.question_en), ("fr", plant.question_fr)):
            result = recall_run(query=question, unit="memory", limit=10, reinforce=False,
                                strategies_on=strategies, use_strength=use_strength,
                                now=now, config=config)
            position = _rank(result.hits, plant.source_id)
            ranks[language].append(position)
            ranks["same" if language == plant.language else "cross"].append(position)
    elapsed = time.perf_counter() - started
    every = ranks["en"] + ranks["fr"]
    misses = _misses(plants, ranks, config=config, strategies=strategies, now=now) if (
        label == "all strategies") else []

    def at5(values: list[int | None]) -> float:
        return sum(1 for r in values if r is not None and r <= 5) / len(values)

    return {"label": label, "recall@5": at5(every), "en@5": at5(ranks["en"]),
            "fr@5": at5(ranks["fr"]), "same@5": at5(ranks["same"]),
            "cross@5": at5(ranks["cross"]),
            "mrr": sum(1 / r for r in every if r is not None) / len(every),
            "ms_per_query": 1000 * elapsed / len(every), "misses": misses}


def _misses(plants: list[Plant], ranks: dict[str, list[int | None]], *, config: Any,
            strategies: tuple[str, ...], now: Any) -> list[dict[str, Any]]:
    """Each question whose planted memory is not in the first 5: its rank within the first
    100, its fused parts there, and its rank by each strategy alone."""
    from memory.services.recall import recall_run

    found = []
    for i, plant in enumerate(plants):
        for language, question in (("en", plant.question_en), ("fr", plant.question_fr)):
            rank = ranks[language][i]
            if rank is not None and rank <= 5:
                continue
            wide = recall_run(query=question, unit="memory", limit=100, reinforce=False,
                              strategies_on=strategies, now=now, config=config)
            position = _rank(wide.hits, plant.source_id)
            parts = wide.hits[position - 1].strategies if position else {}
            alone = {}
            for strategy in strategies:
                one = recall_run(query=question, unit="memory", limit=100, reinforce=False,
                                 strategies_on=(strategy,), now=now, config=config)
                alone[strategy] = _rank(one.hits, plant.source_id)
            found.append({"language": language, "fact_language": plant.language,
                          "question": question, "fact": plant.text, "rank": position,
                          "parts": parts, "alone": alone})
    return found


def _variants(config: Any, embed: bool, vector_weights: tuple[float, ...] = ()
              ) -> list[tuple[str, Any, tuple[str, ...], bool]]:
    section = config.recall
    on = tuple(s for s in STRATEGIES if embed or s not in ENCODED)
    variants = [("all strategies", config, on, True)]
    variants += [(f"without {s}", config, tuple(x for x in on if x != s), True) for s in on]
    variants.append(("strength off", config, on, False))
    rrf = dataclasses.replace(config, recall=dataclasses.replace(section, fusion="rrf"))
    variants.append(("rrf k=60 fusion", rrf, on, True))
    for weight in vector_weights if embed else ():
        weighed = dataclasses.replace(config, recall=dataclasses.replace(
            section, weights={**section.weights, "vector": weight}))
        variants.append((f"vector weight {weight:g}", weighed, on, True))
    return variants


def run_one(n: int, plants_count: int, seed: int, embed: bool,
            reuse: bool = False, vector_weights: tuple[float, ...] = (),
            ablation: bool = True) -> dict[str, Any]:
    name = f"{BENCH_DB}_{n}_{plants_count}_{seed}_{'v' if embed else 'nv'}"
    os.environ["DATABASE_URL"], kept = _database(name, reuse)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    import django

    django.setup()
    from datetime import timedelta

    from memory import clock
    from memory.config import config_get
    from memory.services.sleep_cycle import sleep_cycle_run

    plants = plants_make(plants_count, seed=seed)
    kept = kept and _complete(n + plants_count, embed, name)
    times = {"reused": 1.0} if kept else _consolidate(_planted(n, plants, seed), embed)
    config = config_get()
    now = clock.now()
    rows = [_evaluate(plants, label=label, config=cfg, strategies=on, use_strength=strength,
                      now=now)
            for label, cfg, on, strength in _variants(config, embed, vector_weights)[
                :None if ablation else 1]]
    if not ablation:
        return {"n": n, "plants": plants_count, "times": times, "rows": rows}
    later = now + timedelta(days=1)
    sleep_cycle_run(now=later)
    on = tuple(s for s in STRATEGIES if embed or s not in ENCODED)
    rows.append(_evaluate(plants, label="after a sleep cycle", config=config, strategies=on,
                          use_strength=True, now=later))
    return {"n": n, "plants": plants_count, "times": times, "rows": rows}


def _evidence_share(evidence: tuple[str, ...], hits: list[Any]) -> float:
    """The share of the evidence turns among these hits (a hit holds every turn that said
    the same words)."""
    found = {p.get("source_id") for hit in hits for p in hit.provenance}
    return sum(1 for e in evidence if e in found) / len(evidence)


def _evaluate_questions(questions: list[Question], *, label: str, config: Any,
                        strategies: tuple[str, ...], use_strength: bool, now: Any
                        ) -> dict[str, Any]:
    from memory.services.recall import recall_run

    scores: dict[str, list[tuple[float, float]]] = {}
    for question in questions:
        result = recall_run(query=question.text, unit="memory", limit=10, reinforce=False,
                            strategies_on=strategies, use_strength=use_strength, now=now,
                            config=config)
        share = [_evidence_share(question.evidence, result.hits[:k]) for k in (5, 10)]
        scores.setdefault(question.kind, []).append((share[0], share[1]))
    every = [pair for pairs in scores.values() for pair in pairs]
    row: dict[str, Any] = {"label": label,
                           "recall@5": sum(p[0] for p in every) / len(every),
                           "recall@10": sum(p[1] for p in every) / len(every)}
    for kind, pairs in sorted(scores.items()):
        row[f"{kind}@10"] = sum(p[1] for p in pairs) / len(pairs)
    return row


def run_conversations(sessions: int, turns: int, people: int, seed: int,
                      embed: bool, reuse: bool = False,
                      vector_weights: tuple[float, ...] = (), bare: bool = False
                      ) -> dict[str, Any]:
    name = (f"{BENCH_DB}_conv_{sessions}_{turns}_{people}_{seed}_{'v' if embed else 'nv'}"
            + ("_bare" if bare else ""))
    os.environ["DATABASE_URL"], kept = _database(name, reuse)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    import django

    django.setup()
    from datetime import timedelta

    from memory import clock
    from memory.config import config_get

    dialogue, questions = conversations_make(sessions=sessions, turns=turns, people=people,
                                             seed=seed, speaker_in_text=not bare)
    memories = [{"source_id": t.source_id, "text": t.text, "actor": t.speaker,
                 "occurred_at": t.at.isoformat()} for t in dialogue]
    kept = kept and _complete(len(memories), embed, name)
    times = {"reused": 1.0} if kept else _consolidate(memories, embed)
    config = config_get()
    rows = [_evaluate_questions(questions, label=label, config=cfg, strategies=on,
                                use_strength=strength, now=clock.now())
            for label, cfg, on, strength in _variants(config, embed, vector_weights)]
    return {"turns": len(dialogue), "sessions": sessions, "questions": len(questions),
            "bare": bare, "times": times, "rows": rows,
            "context": _context_share(questions, now=dialogue[-1].at + timedelta(days=1))}


def _context_share(questions: list[Question], *, now: Any) -> float:
    """The share of each question's evidence turns its context block quotes, asked the day
    after the last turn (today everything the generator dated is long faded), each assembly
    rolled back (its ledger rows and reinforcements)."""
    from django.db import transaction

    from memory.models import Memory
    from memory.services.context import context_assemble

    text = dict(Memory.objects.values_list("source_id", "text"))
    shares = []
    for question in questions:
        with transaction.atomic():
            block = context_assemble(query=question.text, agent="bench", budget_tokens=2000,
                                     now=now).context
            transaction.set_rollback(True)
        shares.append(sum(text[e] in block for e in question.evidence)
                      / len(question.evidence))
    return sum(shares) / len(shares)


def _print_conversations(result: dict[str, Any]) -> None:
    times = ", ".join(f"{k} {v:.1f}" for k, v in result["times"].items())
    bare = " (bare turns: the speaker only as the actor)" if result.get("bare") else ""
    print(f"\nconversations{bare}: {result['sessions']} sessions, {result['turns']:,} turns, "
          f"{result['questions']} questions ({times})")
    kinds = sorted(k for k in result["rows"][0] if k.endswith("@10") and k != "recall@10")
    print(f"{'variant':<22} {'R@5':>6} {'R@10':>6} " + " ".join(f"{k:>13}" for k in kinds))
    for row in result["rows"]:
        print(f"{row['label']:<22} {row['recall@5']:>6.3f} {row['recall@10']:>6.3f} "
              + " ".join(f"{row[k]:>13.3f}" for k in kinds))
    print(f"context (POST /api/context's block, 2,000 tokens): {result['context']:.3f} of the "
          "evidence turns quoted")


def _print(result: dict[str, Any]) -> None:
    times = ", ".join(f"{k} {v:.1f}" for k, v in result["times"].items())
    print(f"\nN = {result['n']:,} distractors, {result['plants']} planted facts x 2 languages "
          f"({times})")
    print("(same@5: asked in the fact's own language, a paraphrase; cross@5: asked in the "
          "other language)")
    print(f"{'variant':<22} {'recall@5':>9} {'EN@5':>6} {'FR@5':>6} {'same@5':>7} "
          f"{'cross@5':>7} {'MRR':>6} {'ms/q':>7}")
    for row in result["rows"]:
        print(f"{row['label']:<22} {row['recall@5']:>9.3f} {row['en@5']:>6.3f} "
              f"{row['fr@5']:>6.3f} {row['same@5']:>7.3f} {row['cross@5']:>7.3f} "
              f"{row['mrr']:>6.3f} {row['ms_per_query']:>7.1f}")
    for row in result["rows"]:
        for miss in row.get("misses", []):
            alone = ", ".join(f"{s} {r or '>100'}" for s, r in miss["alone"].items())
            parts = ", ".join(f"{s} {v:.2f}" for s, v in miss["parts"].items())
            print(f"  missed@5 ({miss['language']} question, {miss['fact_language']} fact): "
                  f"rank {miss['rank'] or '>100'} [{parts}]; alone: {alone}\n"
                  f"    Q: {miss['question']}\n    fact: {miss['fact']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--plants", type=int, default=40)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--no-embed", action="store_true")
    parser.add_argument("--conversations", action="store_true",
                        help="the long-conversation part instead of the planted facts")
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--turns", type=int, default=60, help="turns per session")
    parser.add_argument("--people", type=int, default=12)
    parser.add_argument("--bare-turns", action="store_true",
                        help="conversations: a turn's text without its speaker's name (the "
                             "speaker is only the memory's actor), as most datasets post it")
    parser.add_argument("--reuse", action="store_true",
                        help="keep the corpus a previous run consolidated and embedded "
                             "(one database per size, seed and --no-embed)")
    parser.add_argument("--vector-weights", type=float, nargs="*", default=[],
                        help="also each of these weights of the vector strategy")
    parser.add_argument("--no-ablation", action="store_true",
                        help="planted facts: every strategy only (no variant, no sleep cycle)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    embed = not args.no_embed
    weights = tuple(args.vector_weights)
    if args.one is not None:
        result = (run_conversations(args.sessions, args.turns, args.people, args.seed, embed,
                                    args.reuse, weights, args.bare_turns)
                  if args.conversations
                  else run_one(args.one, args.plants, args.seed, embed, args.reuse, weights,
                               not args.no_ablation))
        print(json.dumps(result))
        return
    print(machine_describe())
    print(f"load average at start: {os.getloadavg()}")
    if args.conversations:
        _print_conversations(_child(0))
        print(f"\nload average at end: {os.getloadavg()}")
        return
    for n in args.sizes:
        _print(_child(n))
    print(f"\nload average at end: {os.getloadavg()}")


def _child(n: int) -> dict[str, Any]:
    """One size in a process of its own (a database of its own), with this run's options."""
    command = [sys.executable, __file__, *sys.argv[1:], "--one", str(n)]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result

if __name__ == "__main__":
    main()
