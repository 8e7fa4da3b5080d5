"""Layer 1 reads. Commit-order readers never skip an event committed late: see
memory.selectors.commit_horizon."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL

from memory.models.events import MemoryEvent
from memory.selectors.commit_horizon import committed

Position = tuple[int, str]
_TABLE = MemoryEvent._meta.db_table


class BadCursor(ValueError):
    """A cursor that no selector handed out."""


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
    raise BadCursor("not a cursor handed out by Cortex")


def _beyond(queryset: QuerySet[MemoryEvent], position: Position, *, descending: bool) -> Any:
    operator = "<" if descending else ">"
    condition = RawSQL(
        f'("{_TABLE}"."txid", "{_TABLE}"."id") {operator} (%s, %s)',
        list(position),
        output_field=BooleanField(),
    )
    return queryset.filter(condition)


def event_batch_after(
    *, cursor: Any, limit: int, source: str | None = None
) -> tuple[list[MemoryEvent], Any]:
    """The next `limit` events after `cursor` (None: from the start), in commit order, and the
    cursor to pass next time (unchanged when there is nothing new). JSON-serializable."""
    position = position_parse(cursor)
    queryset = committed(MemoryEvent.objects.all())
    if source is not None:
        queryset = queryset.filter(source=source)
    if position is not None:
        queryset = _beyond(queryset, position, descending=False)
    events = list(queryset.order_by("txid", "id")[:limit])
    if not events:
        return [], cursor
    return events, [events[-1].txid, events[-1].id]


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
