"""The Retain Job's statements, run with server-side binding and binary parameters.

A chunk passes its rows to PostgreSQL as a few arrays of thousands of values (`unnest`).
Django's cursor binds on the client: it quotes every value into the SQL text (about a
microsecond each) and PostgreSQL parses it back (timestamps dearly). Here the statement
is sent with its parameters apart, and a `%b` placeholder sends an array in PostgreSQL's
binary format: 5,000 timestamps cost ~1 ms on each side instead of ~17 ms and ~150 ms.
The cursor is Django's wrapper around psycopg's server-binding cursor on the same
connection and transaction, so execute wrappers and query logging still see it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import orjson


def json_rows(*columns: str) -> str:
    """A subquery of the rows of one JSON parameter (a `%s`, its value from `json_param`):
    `json_rows("id bigint", "at timestamptz")` reads `[[1, "2026-01-05T09:00:00+00:00"], ...]`
    as rows (id, at); a `jsonb` column stays JSON (a list to turn into an array). orjson
    writes the rows in C and PostgreSQL parses them faster than it receives the same values
    as arrays, which psycopg dumps value by value in Python."""
    fields = ", ".join(_json_field(i, *column.split()) for i, column in enumerate(columns))
    return f"(SELECT {fields} FROM jsonb_array_elements(%s::jsonb) AS x)"


def _json_field(index: int, name: str, sql_type: str) -> str:
    if sql_type == "jsonb":  # kept as JSON (a list: ARRAY(SELECT jsonb_array_elements_text(..)))
        return f"(x->{index}) AS {name}"
    return f"(x->>{index})::{sql_type} AS {name}"


def json_param(rows: Iterable[Sequence[Any]]) -> str:
    """The rows for `json_rows`: tuples of str, int, bool, None, finite floats (orjson
    writes an infinite one as null: pass `float_text` of it) and aware datetimes."""
    return orjson.dumps(list(rows)).decode()


def float_text(value: float | None) -> float | str | None:
    """A float as `json_rows` reads it back exactly, infinities included."""
    if value is None or math.isfinite(value):
        return value
    return "Infinity" if value > 0 else "-Infinity"
