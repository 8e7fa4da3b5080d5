"""What a recall spends its time on, in this process without HTTP (bench/recall_latency.py):
each statement's share, the encoders' time beside, and EXPLAIN ANALYZE of the heaviest."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal


def _statement(sql: str) -> str:
    words = " ".join(sql.split())
    return words[:90] + ("..." if len(words) > 90 else "")


@dataclass
class Spent:
    """Seconds in each statement (by its first words), how many ran, and the last SQL and
    parameters of each (to explain)."""

    seconds: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    last: dict[str, tuple[str, Any]] = field(default_factory=dict)


def statement_times(call: Callable[[str], object], queries: Sequence[str]
                    ) -> tuple[float, Spent]:
    """Seconds for every query, and where the statements spent them."""
    from django.db import connection

    spent = Spent()

    def timed(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            key = _statement(sql)
            spent.seconds[key] = spent.seconds.get(key, 0.0) + time.perf_counter() - started
            spent.counts[key] = spent.counts.get(key, 0) + 1
            if not many:
                spent.last[key] = (sql, params)

    started = time.perf_counter()
    with connection.execute_wrapper(timed):
        for query in queries:
            call(query)
    return time.perf_counter() - started, spent


def explained(sql: str, params: Any) -> list[str]:
    """EXPLAIN (ANALYZE, BUFFERS) of a statement as it ran, on this connection (its session
    settings, e.g. the HNSW scan's, still held)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
        return [row[0] for row in cursor.fetchall()]


def dominant_print(queries: Sequence[str], *, unit: Literal["entity", "memory"],
                   top: int = 8) -> None:
    """A recall of `unit` with every strategy (reinforce=false), each statement's share, the
    encoders' time on other queries of the same kind, and the heaviest statement explained."""
    from memory.services.recall import query_encoders, recall_run

    half = len(queries) // 2
    elapsed, spent = statement_times(
        lambda q: recall_run(query=q, unit=unit, reinforce=False), queries[:half])
    n = max(half, 1)
    in_sql = sum(spent.seconds.values()) * 1000 / n
    print(f"  unit={unit}: {elapsed * 1000 / n:.1f} ms a recall (encoders in their threads "
          f"meanwhile), {in_sql:.1f} ms of it in SQL in {sum(spent.counts.values()) / n:.1f} "
          "statements; the heaviest (ms a recall, statements a recall):")
    heaviest = sorted(spent.seconds.items(), key=lambda kv: -kv[1])[:top]
    for key, seconds in heaviest:
        print(f"    {seconds * 1000 / n:7.1f} ms  {spent.counts[key] / n:4.1f}  {key}")
    others = queries[half:]
    for name, encode in query_encoders().items():
        started = time.perf_counter()
        for query in others:
            encode(query)
        each = (time.perf_counter() - started) * 1000 / max(len(others), 1)
        print(f"    encoder {name}: {each:.1f} ms a query (bare, on {len(others)} other queries)")
    if heaviest:
        sql, params = spent.last[heaviest[0][0]]
        print("    EXPLAIN ANALYZE of the heaviest, for the last query:")
        for line in explained(sql, params):  # a vector literal is thousands of characters
            print(f"      {line[:160]}{'...' if len(line) > 160 else ''}")
