"""Decisions are events too (docs/retain.md, "Decisions"): what an operator or an agent
decides (a review of dark matter, a conflict resolution, a merge, a split, a pin, a feedback)
is appended to the raw log, source `operator:<username>` or `api:<agent>`, type `decision`,
in the transaction that then applies it: a decision that fails leaves no event, and no
change without its event. Its payload names the targets by keys a rebuild keeps (entity
keys, observation dedup keys, claims as entity key + lemmas + polarity), never by row ids,
and says how far the Retain Job had gone (`retained_through`, the greatest order key of the
observations retained), so that `cortex rebuild graph` applies it at the same point
(memory.services.decision_replay) through the same service, which then records nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
from django.db import connection
from django.db.models import Max

from memory import clock
from memory.errors import Refused
from memory.event_ids import new_event_ids
from memory.models import MemoryEvent, Observation, ObservationStatus
from memory.models.events import DECISION_TYPE
from memory.services.events import event_append_many

RETAINED_THROUGH = "retained_through"
OPERATOR, AGENT = "operator", "api"
UNKNOWN = "unknown"


class Subtype:
    REVIEW_ACCEPT = "review.accept"
    REVIEW_KEEP = "review.keep"
    REVIEW_MERGE = "review.merge"
    CONFLICT_RESOLVE = "conflict.resolve"
    MERGE = "merge"
    SPLIT = "split"
    PIN = "pin"
    UNPIN = "unpin"
    FEEDBACK = "feedback"


@dataclass(frozen=True)
class Decider:
    """Who decides: `source` is the event's source (`operator:<username>`, `api:<agent>`),
    `name` its actor (the username or the agent's name)."""

    source: str
    name: str


def decider_operator(username: str) -> Decider:
    name = username or UNKNOWN
    return Decider(f"{OPERATOR}:{name}", name)


def decider_agent(agent: str) -> Decider:
    name = agent or UNKNOWN
    return Decider(f"{AGENT}:{name}", name)


def decider_of(by: Decider | str) -> Decider:
    """A Decider as is; a string `operator:<name>` or `api:<name>` as it says; any other
    string is an operator's username."""
    if isinstance(by, Decider):
        return by
    kind, sep, name = by.partition(":")
    if sep and name and kind == AGENT:
        return decider_agent(name)
    if sep and name and kind == OPERATOR:
        return decider_operator(name)
    return decider_operator(by)


class DecisionMismatch(Refused):
    """A replayed decision would name other targets than the event it replays."""

    default_code = "decision_mismatch"


_replaying: ContextVar[MemoryEvent | None] = ContextVar("decision_replaying", default=None)


@contextmanager
def decision_replaying(event: MemoryEvent) -> Iterator[None]:
    """Inside: services apply `event` instead of recording a new one."""
    token = _replaying.set(event)
    try:
        yield
    finally:
        _replaying.reset(token)


def _plain(targets: Mapping[str, Any]) -> Any:
    return orjson.loads(orjson.dumps(dict(targets)))


def _check(event: MemoryEvent, by: Decider, subtype: str, targets: Mapping[str, Any]) -> None:
    held = {k: v for k, v in event.payload.items() if k != RETAINED_THROUGH}
    if event.subtype != subtype or event.source != by.source or held != _plain(targets):
        raise DecisionMismatch(f"event {event.id} ({event.subtype}) does not replay as "
                               f"{subtype} on these targets")


def retained_through() -> str | None:
    """The greatest order key of the observations the Retain Job is done with."""
    done = Observation.objects.exclude(status=ObservationStatus.PENDING).exclude(order_key="")
    value: str | None = done.aggregate(last=Max("order_key"))["last"]
    return value


def decision_record(*, by: Decider, subtype: str, targets: Mapping[str, Any],
                    occurred_at: datetime | None = None) -> str:
    """Append the decision to the raw log (in the caller's transaction, before it changes
    anything); the event's id. When replaying, the event is already there: checked, not
    appended again."""
    replayed = _replaying.get()
    if replayed is not None:
        _check(replayed, by, subtype, targets)
        return replayed.id
    if not connection.in_atomic_block:
        raise RuntimeError("a decision is recorded in the transaction that applies it")
    (source_id,) = new_event_ids(1)
    event = {"source_id": f"{subtype}:{source_id}", "occurred_at": occurred_at or clock.now(),
             "type": DECISION_TYPE, "subtype": subtype, "actor": by.name,
             "payload": {**_plain(targets), RETAINED_THROUGH: retained_through()}}
    (result,) = event_append_many(source=by.source, events=[event])
    return result.id
