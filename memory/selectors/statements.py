"""Statements the ORM builds once per shape and that run again with new values.

The decay expressions (strength, weight: memory/decay/sql.py) are large trees which Django
compiles anew for every query: milliseconds each, more than PostgreSQL takes to run them
over a recall's few hundred rows (bench/recall_latency.py). Here a statement is built from
placeholder values (a time, a list of ids) and kept; each run puts the real values in its
parameters. It is built twice, from two sets of placeholders, to check that they only ever
reach the parameters (never the SQL text, nor a computation made in Python); a statement
that fails the check is built for every run, as without this module.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db.models import QuerySet

# A queryset (its SELECT), or the SQL and parameters of another statement (an UPDATE).
Build = Callable[[datetime, list[int]], "QuerySet[Any] | tuple[str, Sequence[Any]]"]
_PLACEHOLDERS = ((datetime(2001, 2, 3, 4, 5, 6, 123457, tzinfo=UTC), [-101]),
                 (datetime(2002, 3, 4, 5, 6, 7, 234568, tzinfo=UTC), [-202]))


@dataclass(frozen=True)
class _Compiled:
    owner: object  # kept alive so that its id() in the cache key is never reused
    sql: str
    params: tuple[Any, ...]
    slots: tuple[tuple[int, str], ...]  # (position, "at" or "ids")
    reusable: bool


_cache: dict[tuple[Hashable, int], _Compiled] = {}
_KEPT = 64  # shapes x configurations (tests make a configuration per swap)


def _slot(first: Any, second: Any) -> str | None:
    """What a parameter holds: a placeholder ("at", "ids"), a constant (""), or neither."""
    for kind, index in (("at", 0), ("ids", 1)):
        if first == _PLACEHOLDERS[0][index] and second == _PLACEHOLDERS[1][index]:
            return kind
    return "" if first == second else None


def _sql(built: QuerySet[Any] | tuple[str, Sequence[Any]]) -> tuple[str, Sequence[Any]]:
    return built if isinstance(built, tuple) else built.query.sql_with_params()


def _compiled(owner: object, build: Build) -> _Compiled:
    (sql, params), (other_sql, other_params) = (
        _sql(build(at, list(ids))) for at, ids in _PLACEHOLDERS)
    slots = [_slot(a, b) for a, b in zip(params, other_params, strict=False)]
    reusable = sql == other_sql and len(params) == len(other_params) and None not in slots
    return _Compiled(owner=owner, sql=sql, params=tuple(params), reusable=reusable,
                     slots=tuple((i, kind) for i, kind in enumerate(slots) if kind))


def statement_get(*, key: Hashable, owner: object, build: Build, at: datetime,
                  ids: list[int]) -> tuple[str, list[Any]]:
    """The SQL and parameters of `build(at, ids)`; `key` names its shape, `owner` is what
    else it depends on (the configuration), by identity."""
    entry = _cache.get((key, id(owner)))
    if entry is None or entry.owner is not owner:
        entry = _compiled(owner, build)
        if len(_cache) >= _KEPT:
            _cache.clear()
        _cache[(key, id(owner))] = entry
    if not entry.reusable:
        sql, params = _sql(build(at, ids))
        return sql, list(params)
    values = list(entry.params)
    for position, kind in entry.slots:
        values[position] = at if kind == "at" else ids
    return entry.sql, values
