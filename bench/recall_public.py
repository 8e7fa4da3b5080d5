"""Recall on REALTALK, a public benchmark of real conversations (docs/recall.md).

    python bench/recall_public.py            # ingest over HTTP, ask over HTTP, the ablation
    python bench/recall_public.py --reuse    # keep the consolidated database between runs

The protocol of `../shared/benchmarks/realtalk/README.md`, through the public API: every
turn posted with `POST /api/memories/` (its speaker as `actor`, its time, the conversation as
`project`, `<conv_id>:<dia_id>` as `source_id`) to a web server as `cortex up` runs it, on a
throwaway database of the embedded server; every consolidation and vector finished (drained
here, in this process); then one `GET /api/recall/?unit=memory&project=&limit=10&as_of=
&reinforce=false` per scored question. Printed beside a plain BM25 over the same turns,
computed in the same run, per category and overall: any@5, any@10, frac@5, frac@10, all@10,
MRR@10, and recall's p50/p95 over HTTP with the query encoders' own times. Then the
ablation, in process on the same database: each strategy off, strength off, `as_of` off.

The data is read from `../shared/benchmarks/realtalk/` (never copied into the project).
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.databases import database_recreate, database_urls, manage  # noqa: E402
from bench.machine import machine_describe  # noqa: E402

DATA = ROOT.parent / "shared" / "benchmarks" / "realtalk"
BENCH_DB = "cortex_bench_realtalk"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "commonsense"}
METRICS = ("any@5", "any@10", "frac@5", "frac@10", "all@10", "MRR@10")
# What unit=memory reads (trigram and graph are unit=entity's).
MEMORY_STRATEGIES = ("fulltext", "vector", "sparse", "time")
# The README's baseline: English stopwords removed from [a-z0-9]+ tokens (a standard list).
STOPWORDS = frozenset("""
a about above after again against all am an and any are aren't as at be because been before
being below between both but by can't cannot could couldn't did didn't do does doesn't doing
don't down during each few for from further had hadn't has hasn't have haven't having he
he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've
if in into is isn't it it's its itself let's me more most mustn't my myself no nor not of
off on once only or other ought our ours ourselves out over own same shan't she she'd she'll
she's should shouldn't so some such than that that's the their theirs them themselves then
there there's these they they'd they'll they're they've this those through to too under
until up very was wasn't we we'd we'll we're we've were weren't what what's when when's
where where's which while who who's whom why why's with won't would wouldn't you you'd
you'll you're you've your yours yourself yourselves s t
""".split())  # noqa: SIM905


@dataclass(frozen=True)
class Turn:
    conv: str
    dia: str
    speaker: str
    text: str
    memory_text: str
    timestamp: str

    @property
    def source_id(self) -> str:
        return f"{self.conv}:{self.dia}"


@dataclass(frozen=True)
class Question:
    conv: str
    qid: str
    category: int
    question: str
    evidence: tuple[str, ...]
    query_time: str


@dataclass
class Scores:
    per_question: list[tuple[int, dict[str, float]]] = field(default_factory=list)
    times_ms: list[float] = field(default_factory=list)

    def add(self, category: int, ranked: Sequence[set[str]], evidence: Iterable[str]) -> None:
        self.per_question.append((category, question_scores(ranked, set(evidence))))

    def table(self) -> dict[str, dict[str, float]]:
        groups: dict[str, list[dict[str, float]]] = {"all": []}
        for category, scores in self.per_question:
            groups["all"].append(scores)
            groups.setdefault(f"{category} {CATEGORIES[category]}", []).append(scores)
        return {name: {m: statistics.fmean(s[m] for s in rows) for m in METRICS} | {
            "n": len(rows)} for name, rows in sorted(groups.items())}


def question_scores(ranked: Sequence[set[str]], evidence: set[str]) -> dict[str, float]:
    """The README's metrics for one question: `ranked` is what each hit covers, best first."""
    def covered(k: int) -> set[str]:
        return set().union(*ranked[:k]) & evidence if ranked[:k] else set()

    first = next((i for i, turns in enumerate(ranked[:10], 1) if turns & evidence), None)
    return {"any@5": float(bool(covered(5))), "any@10": float(bool(covered(10))),
            "frac@5": len(covered(5)) / len(evidence), "frac@10": len(covered(10)) / len(evidence),
            "all@10": float(covered(10) == evidence), "MRR@10": 1 / first if first else 0.0}


def data_read() -> tuple[list[Turn], list[Question]]:
    if not (DATA / "realtalk_memories.jsonl").is_file():
        sys.exit(f"REALTALK is absent: expected {DATA} (../shared beside the checkout)")
    turns = [Turn(r["conv_id"], r["dia_id"], r["speaker"], r["text"], r["memory_text"],
                  r["timestamp"])
             for r in map(json.loads, (DATA / "realtalk_memories.jsonl").open())]
    questions = [Question(r["conv_id"], r["qid"], r["category"], r["question"],
                          tuple(r["evidence"]), r["query_time"])
                 for r in map(json.loads, (DATA / "realtalk_queries.jsonl").open())
                 if r["scored"]]
    return turns, questions


# ---- the baseline ------------------------------------------------------------------------

def _tokens(text: str) -> list[str]:
    return [t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in STOPWORDS]


class BM25:
    """Okapi BM25 over one conversation's turns (k1 1.2, b 0.75, no stemming)."""

    def __init__(self, docs: Sequence[tuple[str, str]], k1: float = 1.2, b: float = 0.75):
        self.ids = [ident for ident, _ in docs]
        self.tf = [Counter(_tokens(text)) for _, text in docs]
        self.lengths = [sum(tf.values()) for tf in self.tf]
        self.avg = statistics.fmean(self.lengths) if docs else 1.0
        df = Counter(term for tf in self.tf for term in tf)
        n = len(docs)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        self.k1, self.b = k1, b

    def search(self, query: str, k: int) -> list[str]:
        terms = set(_tokens(query))
        scored = []
        for i, tf in enumerate(self.tf):
            norm = self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
            score = sum(self.idf[t] * tf[t] * (self.k1 + 1) / (tf[t] + norm)
                        for t in terms if t in tf)
            if score > 0:
                scored.append((-score, i))
        return [self.ids[i] for _, i in sorted(scored)[:k]]


def bm25_scores(turns: list[Turn], questions: list[Question]) -> Scores:
    by_conv: dict[str, list[tuple[str, str]]] = {}
    for turn in turns:
        by_conv.setdefault(turn.conv, []).append((turn.dia, turn.memory_text))
    indexes = {conv: BM25(docs) for conv, docs in by_conv.items()}
    scores = Scores()
    for q in questions:
        scores.add(q.category, [{d} for d in indexes[q.conv].search(q.question, 10)], q.evidence)
    return scores


# ---- Cortex ------------------------------------------------------------------------------

def _memories(turns: list[Turn]) -> list[dict[str, Any]]:
    return [{"text": t.memory_text, "actor": t.speaker, "occurred_at": f"{t.timestamp}Z",
             "project": t.conv, "source_id": t.source_id} for t in turns]


def _covered(hit: dict[str, Any], conv: str) -> set[str]:
    prefix = f"{conv}:"
    return {p["source_id"].removeprefix(prefix) for p in hit.get("provenance", [])
            if str(p.get("source_id", "")).startswith(prefix)}


def _database(reuse: bool, count: int) -> tuple[str, bool]:
    """The bench database's URL, and whether it already holds the whole consolidated corpus."""
    import psycopg

    admin, url = database_urls(BENCH_DB)
    env = {**os.environ, "DATABASE_URL": url}
    if reuse:
        with psycopg.connect(admin, autocommit=True) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                                  [BENCH_DB]).fetchone() is not None
        if exists:
            manage(env, "migrate", "-v", "0")
            with psycopg.connect(url) as conn:  # consolidated (its vectors: _finish)
                done = conn.execute("SELECT count(*) FROM memory_memory").fetchone()
            if done and done[0] == count:
                return url, True
    database_recreate(admin, BENCH_DB)
    manage(env, "migrate", "-v", "0")
    return url, False


class Api:
    """One keep-alive HTTP connection to the server, speaking JSON with the agent's token."""

    def __init__(self, url: str, token: str) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname or "", parts.port or 80,
                                               timeout=600)
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: Any = None) -> Any:
        self.conn.request(method, path, body=None if body is None else json.dumps(body),
                          headers=self.headers)
        response = self.conn.getresponse()
        data = response.read()
        if response.status >= 300:
            raise RuntimeError(f"{method} {path}: HTTP {response.status}: {data[:300]!r}")
        return json.loads(data)


def _post(api: Api, memories: list[dict[str, Any]]) -> float:
    started = time.perf_counter()
    for i in range(0, len(memories), 1000):
        api.call("POST", "/api/memories/", {"memories": memories[i:i + 1000]})
    return time.perf_counter() - started


def _finish() -> dict[str, float]:
    """Every consolidation job and every vector, done in this process (what the workers do)."""
    from django.db import connection

    from insight.services.analysis import analysis_drain
    from memory.services.embeddings import entity_embed_pending
    from memory.services.memories_embed import memory_embed_pending
    from memory.services.retain import retain_drain

    times: dict[str, float] = {}
    started = time.perf_counter()
    analysis_drain()
    retain_drain(embed=False)
    times["consolidate_s"] = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    started = time.perf_counter()
    while memory_embed_pending(limit=512):
        pass
    entity_embed_pending()
    times["embed_s"] = time.perf_counter() - started
    return times


def _token(env: dict[str, str]) -> str:
    return manage(env, "agent", "create", f"realtalk-{int(time.time())}", "--scopes",
                  "memories:write,recall:read", "--rate", "100000000/min"
                  ).strip().splitlines()[-1]


def http_scores(api: Api, questions: list[Question]) -> Scores:
    scores = Scores()
    for q in questions:
        params = {"q": q.question, "unit": "memory", "project": q.conv, "limit": 10,
                  "as_of": f"{q.query_time}Z", "reinforce": "false"}
        started = time.perf_counter()
        hits = api.call("GET", f"/api/recall/?{urlencode(params)}")["hits"]
        scores.times_ms.append(1000 * (time.perf_counter() - started))
        scores.add(q.category, [_covered(h, q.conv) for h in hits], q.evidence)
    return scores


Variant = tuple[str, dict[str, Any]]


def variants(only: Sequence[str]) -> list[Variant]:
    """The ablation: each strategy off and alone, strength off, `as_of` off, each fusion."""
    from memory.config import config_get

    section = config_get().recall
    assert section is not None
    on = tuple(s for s in section.strategies if s in MEMORY_STRATEGIES)
    rows: list[Variant] = [("as shipped (as_of)", {}),
                           ("as_of off (read today)", {"as_of": False}),
                           ("strength off", {"use_strength": False})]
    rows += [(f"without {s}", {"strategies_on": tuple(x for x in on if x != s)}) for s in on]
    rows += [(f"{s} alone", {"strategies_on": (s,)}) for s in on if s != "time"]
    rows += [(f"{f} fusion", {"recall": {"memory_fusion": f}})
             for f in ("linear", "zscore", "rrf") if f != section.memory_fusion]
    rows += [(f"context share {share:g}", {"recall": {"context_share": share}})
             for share in (0.0, 1.0)]
    rows += [(f"adjacent share {share:g}", {"recall": {"adjacent_share": share}})
             for share in (0.0, 0.1, 0.3)]
    return [v for v in rows if not only or any(o in v[0] for o in only)]


def _config(options: dict[str, Any]) -> Any:
    import dataclasses

    from memory.config import config_get

    config = config_get()
    if "recall" not in options:
        return config
    assert config.recall is not None
    return dataclasses.replace(config, recall=dataclasses.replace(config.recall,
                                                                  **options["recall"]))


def process_scores(questions: list[Question], options: dict[str, Any]) -> Scores:
    from datetime import datetime

    from memory.selectors.recall import RecallFilters
    from memory.services.recall import recall_run

    scores = Scores()
    for q in questions:
        when = datetime.fromisoformat(q.query_time).replace(tzinfo=UTC)
        started = time.perf_counter()
        result = recall_run(
            query=q.question, unit="memory", filters=RecallFilters(project=q.conv), limit=10,
            as_of=None if options.get("as_of") is False else when, reinforce=False,
            strategies_on=options.get("strategies_on"),
            use_strength=options.get("use_strength", True), config=_config(options))
        scores.times_ms.append(1000 * (time.perf_counter() - started))
        scores.add(q.category, [_covered(h.as_dict(), q.conv) for h in result.hits],
                   q.evidence)
    return scores


def encoder_times(questions: list[Question], n: int = 100) -> dict[str, list[float]]:
    """Each query encoder recall runs, bare, on the first `n` questions."""
    from memory.services.recall import query_encoders

    out: dict[str, list[float]] = {}
    for name, encode in query_encoders().items():
        encode("warm-up")
        times = []
        for q in questions[:n]:
            started = time.perf_counter()
            encode(q.question)
            times.append(1000 * (time.perf_counter() - started))
        out[name] = times
    return out


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def print_table(label: str, scores: Scores, baseline: Scores | None = None) -> None:
    print(f"\n{label}")
    print(f"  {'group':<16}{'n':>5}" + "".join(f"{m:>9}" for m in METRICS))
    base = baseline.table() if baseline else {}
    for group, row in scores.table().items():
        print(f"  {group:<16}{row['n']:>5.0f}" + "".join(f"{row[m]:>9.3f}" for m in METRICS))
        if group in base:
            print(f"  {'  - BM25':<16}{'':>5}" + "".join(
                f"{row[m] - base[group][m]:>+9.3f}" for m in METRICS))
    if scores.times_ms:
        print(f"  latency p50 {_pct(scores.times_ms, 0.5):.1f} ms, "
              f"p95 {_pct(scores.times_ms, 0.95):.1f} ms")


def summary_line(label: str, scores: Scores) -> str:
    row = scores.table()["all"]
    return (f"  {label:<28} any@5 {row['any@5']:.3f}  frac@10 {row['frac@10']:.3f}  "
            f"MRR@10 {row['MRR@10']:.3f}  any@10 {row['any@10']:.3f}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reuse", action="store_true",
                        help="keep the consolidated database for the next run")
    parser.add_argument("--no-http", action="store_true",
                        help="ask in process only (the database must exist: --reuse)")
    parser.add_argument("--ablation", nargs="*", default=None,
                        help="the ablation's rows (all when given no name; none when absent)")
    parser.add_argument("--no-finish", action="store_true",
                        help="ask without draining what waits (vectors a config does not read)")
    parser.add_argument("--conversations", nargs="*", default=(),
                        help="only these conv_ids (quick checks; the figures need all ten)")
    args = parser.parse_args(argv)

    turns, questions = data_read()
    if args.conversations:
        turns = [t for t in turns if t.conv in args.conversations]
        questions = [q for q in questions if q.conv in args.conversations]
    print(machine_describe())
    print(f"REALTALK: {len(turns)} turns, {len(questions)} scored questions")
    # Under load, OpenMP's spinning threads make the encoder hundreds of times slower.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    url, kept = _database(args.reuse, len(turns))
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    import django

    django.setup()
    env = {**os.environ}
    baseline = bm25_scores(turns, questions)
    print_table("plain BM25 over the turns (k1 1.2, b 0.75, English stopwords)", baseline)

    from bench.serving import web_served

    shipped = None
    with web_served(env, workers=1) as server:
        api = Api(server, _token(env))
        if not kept:
            print(f"\nposted {len(turns)} memories in {_post(api, _memories(turns)):.1f} s")
        if not args.no_finish:
            print("finished: " + ", ".join(f"{k} {v:.1f}" for k, v in _finish().items()))
        if not args.no_http:
            api.call("GET", f"/api/recall/?{urlencode({'q': 'warm-up', 'unit': 'memory'})}")
            shipped = http_scores(api, questions)
    if shipped is not None:
        print_table("Cortex over HTTP, as shipped (as_of the question's time)", shipped,
                    baseline)
    encoders = encoder_times(questions)
    for name, times in encoders.items():
        print(f"  query encoding {name}: p50 {_pct(times, 0.5):.1f} ms, "
              f"p95 {_pct(times, 0.95):.1f} ms")
    if args.ablation is not None:
        print("\nablation (in process, same database):")
        print(summary_line("plain BM25", baseline))
        for label, options in variants(args.ablation):
            print(summary_line(label, process_scores(questions, options)), flush=True)


if __name__ == "__main__":
    main()
