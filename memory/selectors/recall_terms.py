"""Which of a query's stems each full-text source must match (docs/recall.md).

A query matches any of its words' stems (`cortex_tsq`). A stem found in a large share of a
source's rows (a number, a common verb) would make the ranking read and score tens of
thousands of rows for every recall. So each source matches on the query's rarest stems, as
many as PostgreSQL's own statistics (the lexeme frequencies ANALYZE keeps) say fit in the
source's `fulltext_row_budget` rows, and always the rarest one; every stem still counts in the
ranking. When the whole query fits the budget (any small graph), nothing is left out.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from memory.selectors.recall_bm25 import StemWeights, stem_idf

# source -> (pg_stats tablename, attname, the table it counts rows of)
SOURCES: dict[str, tuple[str, str, str]] = {
    "names": ("entity_names_search", "cortex_tsv", "memory_entity"),
    "facts": ("fact_claim_search", "cortex_tsv", "memory_fact"),
    "memories": ("memory_memory", "search", "memory_memory"),
    "compiled": ("memory_compiledtruth", "search", "memory_compiledtruth"),
}
_LEXEME = re.compile(r"'((?:[^']|'')*)'")
# The sources ranked by BM25, and the column whose average length (lexemes) it needs.
BM25_SOURCES = {"memories": "search"}
# Rows sampled for that average (the first ones on disk: a length is no rarer there).
LENGTH_SAMPLE = 10_000


@dataclass(frozen=True)
class TermStats:
    """A source's row count and the share of its rows holding each of its most common
    stems; a stem not among them is estimated as PostgreSQL does, half the least share."""

    rows: float
    share: Mapping[str, float]
    floor: float
    average_length: float = 1.0

    def rows_of(self, stem: str) -> float:
        return max(self.rows, 0.0) * self.share.get(stem, self.floor)


@dataclass(frozen=True)
class TextQuery:
    """`rank`: the query's tsquery (every stem); `match`: per source, the stems rows must hold;
    `weights`: per source ranked by BM25 (recall_bm25), every stem and its idf."""

    rank: str
    match: Mapping[str, str]
    bm25: tuple[float, float]  # (k1, b)
    weights: Mapping[str, StemWeights] = field(default_factory=dict)

    def matching(self, source: str) -> str:
        return self.match.get(source, self.rank)


_cache: dict[str, tuple[float, TermStats]] = {}


def _quote(stem: str) -> str:
    return "'" + stem.replace("'", "''") + "'"


def _tsquery(stems: list[str]) -> str:
    return " | ".join(_quote(stem) for stem in stems)


def _stats_read(source: str) -> TermStats:
    tablename, attname, table = SOURCES[source]
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [table])
        found = cursor.fetchone()
        cursor.execute(
            "SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats "
            "WHERE tablename = %s AND attname = %s AND most_common_elems IS NOT NULL",
            [tablename, attname])
        row = cursor.fetchone()
        length = _average_length(cursor, source)
    rows = float(found[0]) if found else 0.0
    if row is None:
        return TermStats(rows=rows, share={}, floor=0.0, average_length=length)
    stems, freqs = list(row[0]), [float(f) for f in row[1]]
    # The frequencies are followed by their minimum, their maximum and the null share.
    return TermStats(rows=rows, share=dict(zip(stems, freqs, strict=False)),
                     floor=freqs[len(stems)] / 2 if len(freqs) > len(stems) else 0.0,
                     average_length=length)


def _average_length(cursor: Any, source: str) -> float:
    if source not in BM25_SOURCES:
        return 1.0
    column, table = BM25_SOURCES[source], SOURCES[source][2]
    cursor.execute(f"SELECT avg(length({column})) FROM (SELECT {column} FROM {table} "
                   f"LIMIT {LENGTH_SAMPLE}) AS sample")
    found = cursor.fetchone()
    return float(found[0]) if found and found[0] is not None else 1.0


def _weights(stems: list[str], stats: TermStats) -> StemWeights:
    return StemWeights(stems=tuple(_quote(stem) for stem in stems),
                       idf=tuple(stem_idf(rows=stats.rows, containing=stats.rows_of(stem))
                                 for stem in stems),
                       average_length=stats.average_length)


def term_stats(*, source: str, ttl_seconds: float) -> TermStats:
    """The source's statistics, read again once they are `ttl_seconds` old."""
    now = time.monotonic()
    cached = _cache.get(source)
    if cached is None or now - cached[0] > ttl_seconds:
        cached = (now, _stats_read(source))
        _cache[source] = cached
    return cached[1]


def _fitting(stems: list[str], stats: TermStats, budget: int) -> list[str]:
    """The rarest stems whose estimated rows add up to at most `budget` (at least one)."""
    ranked = sorted(stems, key=lambda stem: (stats.rows_of(stem), stem))
    kept: list[str] = []
    total = 0.0
    for stem in ranked:
        total += stats.rows_of(stem)
        if kept and total > budget:
            break
        kept.append(stem)
    return sorted(kept)


# A query's tsquery depends on its text alone (cortex_tsq is immutable): a context assembly
# recalls the same query twice (with its project and without), a session asks again.
QUERIES_KEPT = 1024


@functools.lru_cache(maxsize=QUERIES_KEPT)
def _tsquery_of(query: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT cortex_tsq(%s)::text", [query])
        return str(cursor.fetchone()[0])


def text_query(*, query: str, budget: Mapping[str, int], ttl_seconds: float,
               bm25: tuple[float, float]) -> TextQuery:
    """The query's stems (one statement, the first time), what each source must match, and
    the BM25 sources' stem weights."""
    rank = _tsquery_of(query)
    stems = sorted(set(m.replace("''", "'") for m in _LEXEME.findall(rank)))
    match: dict[str, str] = {}
    weights: dict[str, StemWeights] = {}
    for source in SOURCES:
        stats = term_stats(source=source, ttl_seconds=ttl_seconds)
        kept = _fitting(stems, stats, budget[source])
        if len(kept) < len(stems):
            match[source] = _tsquery(kept)
        if source in BM25_SOURCES:
            weights[source] = _weights(stems, stats)
    return TextQuery(rank=rank, match=match, weights=weights, bm25=bm25)
