"""Statements that carry a batch as one JSON document, bound on the server.

Django's psycopg cursors splice parameters into the SQL text, so a multi-megabyte document
would reach the server as a literal it has to lex (~8% of an insert's time in perf); here it
travels as a parameter, as jsonb bytes, without a decode or an encode on the way.
"""

from __future__ import annotations

from urllib.parse import quote

import psycopg
from django.db import connection
from django.db.backends.utils import CursorWrapper
from psycopg.types.json import Jsonb


def server_bound_cursor() -> CursorWrapper:
    """A cursor of Django's connection (same transaction, same query logging) whose
    parameters are bound by the server."""
    connection.ensure_connection()
    cursor = psycopg.Cursor(connection.connection)
    # (django-stubs types these as taking a wrapper; they wrap a DB-API cursor)
    if connection.queries_logged:
        return connection.make_debug_cursor(cursor)  # type: ignore[arg-type]
    return connection.make_cursor(cursor)  # type: ignore[arg-type]


def _as_is(document: bytes) -> bytes:
    return document


def jsonb_param(document: bytes) -> Jsonb:
    """A JSON text (UTF-8 bytes) sent as a jsonb parameter, as it is."""
    return Jsonb(document, _as_is)


def connection_url() -> str:
    """The URL of the database this process is connected to (a test database too), for a
    process of its own to connect to the same one."""
    s = connection.settings_dict
    host = s["OPTIONS"].get("host") or s["HOST"] or "localhost"
    user = quote(s["USER"] or "")
    password = f":{quote(s['PASSWORD'])}" if s["PASSWORD"] else ""
    if host.startswith("/"):
        return f"postgresql://{user}{password}@/{quote(s['NAME'])}?host={quote(host)}"
    return f"postgresql://{user}{password}@{host}:{s['PORT'] or 5432}/{quote(s['NAME'])}"


def commit_unwaited() -> None:
    """This transaction's commit does not wait for its WAL to reach the disk (tens of ms on a
    busy disk, a few on an idle one): for what a crash may lose without harm (a recall's
    reinforcements, a context's ledger rows: a repeat injection at worst). The database
    stays consistent. Only in a transaction of its own (the outermost atomic block): inside
    a caller's, the caller's writes would commit unwaited too."""
    if len(connection.atomic_blocks) != 1:
        return
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL synchronous_commit = off")
