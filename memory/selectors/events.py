"""Layer 1 reads. Commit-order readers never skip an event committed late: see
memory.selectors.commit_horizon."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL

from memory.errors import Invalid
from memory.event_payload import payload_loads
from memory.models.events import MemoryEvent
from memory.selectors.commit_horizon import committed
from memory.selectors.sql import sql_rows

Position = tuple[int, str]
_TABLE = MemoryEvent._meta.db_table


class BadCursor(Invalid):
    """A cursor that no selector handed out."""

    default_fields = {"cursor": "Not a cursor handed out by this API."}


def position_parse(cursor: Any) -> Position | None:
    """Cursor (None, or [txid, id] as handed out) -> position; BadCursor otherwise."""
    if cursor is None:
        return None
    if (
        isinstance(cursor, Sequence)
        and not isinstance(cursor, str)
        and len(cursor) == 2
        and isinstance(cursor[0], int)
        and not isinstance(cursor[0], bool)
        and 0 <= cursor[0] < 2**63
        and isinstance(cursor[1], str)
        and len(cursor[1]) <= 26
    ):
        return cursor[0], cursor[1]
    raise BadCursor()


def _beyond(queryset: QuerySet[MemoryEvent], position: Position, *, descending: bool) -> Any:
    operator = "<" if descending else ">"
    condition = RawSQL(
        f'("{_TABLE}"."txid", "{_TABLE}"."id") {operator} (%s, %s)',
        list(position),
        output_field=BooleanField(),
    )
    return queryset.filter(condition)


# A Claude Code record carries a tool's output twice: in the message's tool_result block and
# again in `toolUseResult` (an object for most tools). The lean view leaves that object out (a
# `toolUseResult` that is a string, some errors, stays).
def _lean_payload(payload: Any) -> Any:
    if isinstance(payload, dict) and isinstance(payload.get("toolUseResult"), dict):
        del payload["toolUseResult"]
    return payload


def _lean(queryset: QuerySet[MemoryEvent]) -> list[MemoryEvent]:
    """The events with lean payloads, recorded_at deferred."""
    events = list(queryset.defer("recorded_at"))
    for event in events:
        event.payload = _lean_payload(event.payload)
    return events


_SORTS_OFF = "SELECT current_setting('enable_sort'), set_config('enable_sort', 'off', true)"


@contextmanager
def _ordered_by_an_index() -> Iterator[None]:
    """Reading in commit order, the planner is told to avoid a sort: the (source, txid, id)
    index gives the order and the LIMIT stops the scan. Without it, when its statistics are
    missing or behind (a table just filled, or growing faster than autovacuum analyzes it),
    it may fetch and sort every event after the cursor for each batch (measured: 450 ms a
    batch at 56,000 events, growing with the log). For this statement only."""
    with transaction.atomic(savepoint=False), connection.cursor() as cursor:
        cursor.execute(_SORTS_OFF)
        previous = cursor.fetchone()[0]
        yield  # (on an error the transaction is rolled back, and the setting with it)
        cursor.execute("SELECT set_config('enable_sort', %s, true)", [previous])


STREAM_PREFIX = "type:"


def stream_filter(source: str) -> dict[str, str]:
    """What a reader's `source` selects: one source, or a stream `type:<type>/<subtype>`, the
    events of that type from every source (free-text memories: `type:memory/text`), read in
    commit order through the (type, subtype, txid, id) index."""
    if source.startswith(STREAM_PREFIX):
        type_, _, subtype = source[len(STREAM_PREFIX):].partition("/")
        return {"type": type_, "subtype": subtype}
    return {"source": source}


def event_batch_after(
    *, cursor: Any, limit: int, source: str | None = None, lean: bool = False
) -> tuple[list[MemoryEvent], Any]:
    """The next `limit` events after `cursor` (None: from the start), in commit order, and the
    cursor to pass next time (unchanged when there is nothing new). JSON-serializable.
    `lean` (for analyzers): payloads without what repeats their other parts (_lean_payload),
    recorded_at loaded only if asked for."""
    position = position_parse(cursor)
    queryset = committed(MemoryEvent.objects.all())
    if source is not None:
        queryset = queryset.filter(**stream_filter(source))
    if position is not None:
        queryset = _beyond(queryset, position, descending=False)
    queryset = queryset.order_by("txid", "id")[:limit]
    with _ordered_by_an_index():
        events = _lean(queryset) if lean else list(queryset)
    if not events:
        return [], cursor
    return events, [events[-1].txid, events[-1].id]


def event_held_back(*, cursor: Any, source: str) -> bool:
    """Whether an event after `cursor` is visible yet above the commit horizon: committed (or
    the reader's own) but behind a transaction of this database still open (a worker, a
    session left idle in a transaction, autovacuum), so a reader gets nothing for now."""
    position = position_parse(cursor)
    queryset = MemoryEvent.objects.filter(**stream_filter(source))
    if position is not None:
        queryset = _beyond(queryset, position, descending=False)
    return queryset.exists() and not committed(queryset).exists()


# What an analyzer reads of an event (insight.analyzers.base.Event): the producers' contract.
_READ_COLUMNS = ("id", "source", "source_id", "type", "subtype", "occurred_at", "actor",
                 "project", "correlation_session", "correlation_thread", "correlation_parent",
                 "txid", "payload")


def event_reads_after(
    *, cursor: Any, limit: int, source: str
) -> tuple[list[dict[str, Any]], Any]:
    """`event_batch_after(lean=True)` as the analyzers read it: event-shaped dicts (id,
    source, source_id, type, subtype, occurred_at, actor, project, correlation, payload;
    context False),
    read as rows, not models (a model instance per event cost a third of this read), and the
    cursor to pass next time. Same order, horizon and lean payloads."""
    position = position_parse(cursor)
    queryset = committed(MemoryEvent.objects.all()).filter(**stream_filter(source))
    if position is not None:
        queryset = _beyond(queryset, position, descending=False)
    ordered = queryset.order_by("txid", "id").values_list(*_READ_COLUMNS)[:limit]
    with _ordered_by_an_index():
        # Binary: a payload arrives as its bytes, not as hex text twice its size.
        rows = sql_rows(*ordered.query.sql_with_params(), binary=True)
    if not rows:
        return [], cursor
    events = [
        {"id": pk, "source": src, "source_id": source_id, "type": type_, "subtype": subtype,
         "occurred_at": occurred_at, "actor": actor, "project": project,
         "correlation": {"session": session, "thread": thread, "parent": parent},
         "payload": _lean_payload(payload_loads(payload)), "context": False}
        for (pk, src, source_id, type_, subtype, occurred_at, actor, project, session, thread,
             parent, _txid, payload) in rows
    ]
    return events, [rows[-1][11], rows[-1][0]]


@dataclass(frozen=True)
class EventFilters:
    source: str | None = None
    type: str | None = None
    subtype: str | None = None
    project: str | None = None
    occurred_after: datetime | None = None
    occurred_before: datetime | None = None


def _filtered(filters: EventFilters) -> QuerySet[MemoryEvent]:
    queryset = MemoryEvent.objects.all()
    for name in ("source", "type", "subtype", "project"):
        value = getattr(filters, name)
        if value is not None:
            queryset = queryset.filter(**{name: value})
    if filters.occurred_after is not None:
        queryset = queryset.filter(occurred_at__gte=filters.occurred_after)
    if filters.occurred_before is not None:
        queryset = queryset.filter(occurred_at__lt=filters.occurred_before)
    return queryset


@dataclass(frozen=True)
class EventPage:
    events: list[MemoryEvent]
    cursor: Position | None
    has_more: bool


def event_list(
    *, filters: EventFilters, cursor: Any, limit: int, newest_first: bool = False
) -> EventPage:
    """A page of events matching `filters`. Oldest first, in commit order (a feed a reader can
    poll without missing late commits), or newest first. BadCursor on a forged cursor."""
    position = position_parse(cursor)
    queryset = _filtered(filters)
    if not newest_first:
        queryset = committed(queryset)
    if position is not None:
        queryset = _beyond(queryset, position, descending=newest_first)
    order = ("-txid", "-id") if newest_first else ("txid", "id")
    events = list(queryset.order_by(*order)[: limit + 1])
    has_more = len(events) > limit
    events = events[:limit]
    last = (events[-1].txid, events[-1].id) if events else position
    return EventPage(events=events, cursor=last, has_more=has_more)
