"""Layer 1 writes: append events to the immutable log, idempotently, a batch at a time."""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import psycopg
from django.conf import settings
from django.db import connection, transaction

from memory import clock
from memory.errors import Unprocessable
from memory.event_ids import new_event_ids
from memory.limits import SOURCE_CHARS
from memory.models.events import MemoryEvent
from memory.services.event_input import (
    IDEMPOTENCY_HEADER,
    EventRow,
    event_one_parse,
    event_post_split,
    event_rows_parse,
    event_types_refuse_reserved,
)
from memory.services.sql import server_bound_cursor

__all__ = [
    "EventAppendResult",
    "IdempotencyKeyConflict",
    "PreparedEvents",
    "event_append",
    "event_append_keyed",
    "event_append_many",
    "event_append_posted",
    "event_append_prepared",
    "event_batch_prepare",
]

# One statement for the whole batch, its columns sent as arrays (bound on the server: sql.py).
# Rows go in ordered by source_id (sorted here) so that concurrent batches wait on each
# other's conflicting keys in the same order (no deadlock); unnest hands its rows to the
# INSERT in the arrays' order. A conflict with a row of a transaction still in flight waits
# for its outcome, so every id read back afterwards belongs to a committed row (or to the
# caller's transaction).
_INSERT = """
INSERT INTO memory_memoryevent
    (id, source, source_id, occurred_at, recorded_at, type, subtype, actor, project,
     correlation_session, correlation_thread, correlation_parent, payload, redaction_count)
SELECT u.id, %s, u.source_id, u.occurred_at, %s, u.type, u.subtype, u.actor, u.project,
       u.session, u.thread, u.parent, u.payload, u.redactions
FROM unnest(%s::text[], %s::text[], %s::timestamptz[], %s::text[], %s::text[], %s::text[],
            %s::text[], %s::text[], %s::text[], %s::text[], %s::bytea[], %s::int[])
    AS u(id, source_id, occurred_at, type, subtype, actor, project, session, thread, parent,
         payload, redactions)
ON CONFLICT (source, source_id) DO NOTHING
RETURNING source_id, id
"""

# A batch of more than one event goes in by COPY (binary): less of the server's time than the
# INSERT above, which builds its rows from arrays. COPY has no ON CONFLICT: it runs in a
# savepoint, and when one row is already stored (a file read again, a hook's event, a
# concurrent writer: it waits for that writer's outcome as the INSERT does) nothing of it
# stays and the batch goes by the INSERT. Rows go in ordered by source_id, as there.
_COPY = """
COPY memory_memoryevent
    (id, source, source_id, occurred_at, recorded_at, type, subtype, actor, project,
     correlation_session, correlation_thread, correlation_parent, payload, redaction_count)
FROM STDIN (FORMAT BINARY)
"""
_COPY_FIELDS = 14
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # signature, flags, no header extension
_COPY_TRAILER = b"\xff\xff"
_PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)  # timestamptz: microseconds since
_MICROSECOND = timedelta(microseconds=1)
_ROW_START = struct.pack(">h", _COPY_FIELDS)
_LENGTH = struct.Struct(">i").pack
_TIMESTAMP = struct.Struct(">iq").pack  # (8, microseconds)
_INT4 = struct.Struct(">ii").pack  # (4, value)

_EXISTING = """
SELECT source_id, id FROM memory_memoryevent WHERE source = %s AND source_id = ANY(%s::text[])
"""

_INSERT_KEY = """
INSERT INTO memory_eventidempotencykey (source, key, body_sha256, event_id, created_at)
VALUES (%s, %s, %s, %s, %s)
ON CONFLICT (source, key) DO NOTHING
RETURNING id
"""

_STORED_KEY = """
SELECT body_sha256, event_id FROM memory_eventidempotencykey WHERE source = %s AND key = %s
"""


@dataclass(frozen=True)
class EventAppendResult:
    id: str
    source_id: str
    created: bool


class IdempotencyKeyConflict(Unprocessable):
    """The Idempotency-Key was already used with a different body."""

    default_code = "idempotency_key_reused"
    default_message = "This Idempotency-Key was already used with a different body."
    default_fields = {IDEMPOTENCY_HEADER: "Already used with a different body."}


def _checked_source(source: str) -> str:
    if not isinstance(source, str) or not source.strip() or len(source) > SOURCE_CHARS:
        raise ValueError(f"source must be a non-empty string of at most {SOURCE_CHARS} characters")
    return source


def _insert_columns(rows: Sequence[EventRow], ids: Mapping[str, str]) -> list[list[Any]]:
    """The rows (at least one) as _INSERT's arrays, one per column."""
    return [list(column) for column in zip(*(
        (ids[row.source_id], row.source_id, row.occurred_at, row.type, row.subtype, row.actor,
         row.project, row.correlation_session, row.correlation_thread, row.correlation_parent,
         row.payload_stored, row.redaction_count) for row in rows), strict=True)]


def _insert(batch: PreparedEvents) -> dict[str, str]:
    ordered = sorted(_firsts(batch.rows).values(), key=lambda row: row.source_id)
    with server_bound_cursor() as cursor:
        params: list[Any] = [batch.source, clock.now(), *_insert_columns(ordered, batch.ids)]
        cursor.execute(_INSERT, params)
        return dict(cursor.fetchall())


def _copy_data(source: str, rows: Sequence[EventRow], ids: Mapping[str, str]) -> bytes:
    """The rows in COPY's binary format (recorded now)."""
    fields: dict[str, bytes] = {}  # the texts that repeat (type, actor, session...), as fields
    source_field = _text_field(source)
    recorded = _TIMESTAMP(8, (clock.now() - _PG_EPOCH) // _MICROSECOND)
    parts = [_COPY_HEADER]
    extend = parts.extend
    for row in rows:
        payload = row.payload_stored
        extend((
            _ROW_START, _text_field(ids[row.source_id]), source_field,
            _text_field(row.source_id),
            _TIMESTAMP(8, (row.occurred_at - _PG_EPOCH) // _MICROSECOND), recorded,
            *[fields.get(text) or fields.setdefault(text, _text_field(text))
              for text in (row.type, row.subtype, row.actor, row.project,
                           row.correlation_session, row.correlation_thread)],
            _text_field(row.correlation_parent),
            _LENGTH(len(payload)), payload, _INT4(4, row.redaction_count),
        ))
    parts.append(_COPY_TRAILER)
    return b"".join(parts)


def _text_field(text: str) -> bytes:
    data = text.encode()
    return _LENGTH(len(data)) + data


def _copied(batch: PreparedEvents) -> bool:
    """COPY the batch; False (and nothing of it written) when an event is already stored."""
    try:
        with (transaction.atomic(), server_bound_cursor() as cursor,
              cursor.copy(_COPY) as copy):
            copy.write(batch.copy_data)
    except psycopg.errors.UniqueViolation:
        return False
    return True


def _existing(source: str, source_ids: Sequence[str]) -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute(_EXISTING, [source, list(source_ids)])
        return dict(cursor.fetchall())


@dataclass(frozen=True)
class PreparedEvents:
    """A batch checked and sanitized, its ids minted and (more than one event) its COPY data
    built: what event_append_prepared writes. Preparing needs no database, so a producer can
    prepare the next batch while the last one is written."""

    source: str
    rows: list[EventRow]  # every event of the batch, in order
    ids: dict[str, str]  # source_id -> the id minted for its first event
    copy_data: bytes  # COPY's binary data, b"" for a single event (it goes by INSERT)


def event_batch_prepare(*, source: str, events: Sequence[Mapping[str, Any]]) -> PreparedEvents:
    """Check and sanitize a batch (up to CORTEX_MAX_BATCH) for `source`; Invalid (TooLarge)
    naming every problem if one event is wrong (see event_rows_parse)."""
    source = _checked_source(source)
    rows = event_rows_parse(
        events,
        max_batch=settings.CORTEX_MAX_BATCH,
        max_payload_bytes=settings.CORTEX_MAX_PAYLOAD_BYTES,
    )
    return _prepared(source, rows)


def _firsts(rows: Sequence[EventRow]) -> dict[str, EventRow]:
    firsts: dict[str, EventRow] = {}
    for row in rows:
        firsts.setdefault(row.source_id, row)
    return firsts


def _prepared(source: str, rows: list[EventRow]) -> PreparedEvents:
    firsts = _firsts(rows)
    ids = dict(zip(firsts, new_event_ids(len(firsts)), strict=True))
    if len(firsts) < 2:
        return PreparedEvents(source, rows, ids, b"")
    ordered = sorted(firsts.values(), key=lambda row: row.source_id)
    return PreparedEvents(source, rows, ids, _copy_data(source, ordered, ids))


def event_append_prepared(*, batch: PreparedEvents) -> list[EventAppendResult]:
    """Store a prepared batch; one result per event, in order. Each (source, source_id) is
    stored once: repeats answer the stored id, created=False."""
    # One COPY or one INSERT: all or nothing by itself. The repeats are read after it; in
    # autocommit the batch is committed by then, which is fine: a retry answers created=False.
    if batch.copy_data and _copied(batch):
        return _results(batch.rows, batch.ids, set(batch.ids))
    inserted = _insert(batch) if batch.ids else {}
    missing = [source_id for source_id in batch.ids if source_id not in inserted]
    stored = {**inserted, **(_existing(batch.source, missing) if missing else {})}
    if len(stored) != len(batch.ids):
        raise RuntimeError("an event neither inserted nor found; refusing to answer")
    return _results(batch.rows, stored, set(inserted))


def event_append_many(
    *, source: str, events: Sequence[Mapping[str, Any]]
) -> list[EventAppendResult]:
    """Append a batch (up to CORTEX_MAX_BATCH) under `source`; one result per event, in order.

    Sanitizes every string, refuses the whole batch (Invalid, TooLarge) if one event is wrong,
    and stores each (source, source_id) once: repeats answer the stored id, created=False.
    """
    return event_append_prepared(batch=event_batch_prepare(source=source, events=events))


def event_append(*, source: str, event: Mapping[str, Any]) -> EventAppendResult:
    """Append one event; Invalid (TooLarge) names its own bad fields."""
    source = _checked_source(source)
    row = event_one_parse(event, max_payload_bytes=settings.CORTEX_MAX_PAYLOAD_BYTES)
    return event_append_prepared(batch=_prepared(source, [row]))[0]


def event_append_posted(
    *, source: str, body: Any, idempotency_key: str | None
) -> list[EventAppendResult]:
    """What POST /api/events/ asks: one event (under an Idempotency-Key or not) or a batch."""
    events = event_post_split(body, idempotency_key)
    event_types_refuse_reserved(events if events is not None else [body])
    if events is not None:
        return event_append_many(source=source, events=events)
    if idempotency_key is None:
        return [event_append(source=source, event=body)]
    return [event_append_keyed(source=source, event=body, idempotency_key=idempotency_key)]


def _results(
    rows: Sequence[EventRow], stored: Mapping[str, str], inserted: set[str]
) -> list[EventAppendResult]:
    results = []
    for row in rows:
        created = row.source_id in inserted
        inserted.discard(row.source_id)  # a repeat within the batch is not created twice
        results.append(EventAppendResult(stored[row.source_id], row.source_id, created))
    return results


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _body_digest(event: Mapping[str, Any]) -> str:
    try:
        body = orjson.dumps(event, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except TypeError:
        body = json.dumps(event, sort_keys=True, default=str).encode()
    return _sha256(body)


def _answer_for_key(stored: tuple[str, str], digest: str) -> EventAppendResult:
    body_sha256, event_id = stored
    if body_sha256 != digest:
        raise IdempotencyKeyConflict()
    source_id = MemoryEvent.objects.values_list("source_id", flat=True).get(id=event_id)
    return EventAppendResult(event_id, source_id, False)


def _stored_key(source: str, key_hash: str) -> tuple[str, str] | None:
    with connection.cursor() as cursor:
        cursor.execute(_STORED_KEY, [source, key_hash])
        row: tuple[str, str] | None = cursor.fetchone()
        return row


def _key_insert(source: str, key_hash: str, digest: str, event_id: str, now: datetime) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(_INSERT_KEY, [source, key_hash, digest, event_id, now])
        return cursor.fetchone() is not None


def event_append_keyed(
    *, source: str, event: Mapping[str, Any], idempotency_key: str
) -> EventAppendResult:
    """Append one event under an Idempotency-Key: the same key with the same body answers the
    first result (created=False); with another body, IdempotencyKeyConflict and nothing written.
    """
    source = _checked_source(source)
    row = event_one_parse(event, max_payload_bytes=settings.CORTEX_MAX_PAYLOAD_BYTES)
    key_hash, digest = _sha256(idempotency_key.encode()), _body_digest(event)
    with transaction.atomic():
        stored = _stored_key(source, key_hash)
        if stored is not None:
            return _answer_for_key(stored, digest)
        result = event_append_prepared(batch=_prepared(source, [row]))[0]
        if not _key_insert(source, key_hash, digest, result.id, clock.now()):
            stored = _stored_key(source, key_hash)
            assert stored is not None
            return _answer_for_key(stored, digest)
        return result
