"""Writing Observations (docs/observations.md): checked against their category's schema,
sanitized like events, tied to the events they come from, and idempotent.

Idempotency: each observation has a dedup key, sha256(source, category, key), unique in
the database. An analyzer passes its own `dedup_key` (what makes two of its observations
"the same": usually the event ids); without one, the key is the observation's content."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
from django.db import transaction

from memory import clock, redaction
from memory.errors import Invalid, TooLarge
from memory.event_ids import new_event_ids
from memory.limits import (
    NAMESPACE_CHARS,
    OBSERVATION_ACTOR_CHARS,
    OBSERVATION_CATEGORY_CHARS,
    OBSERVATION_CORRELATION_CHARS,
    OBSERVATION_DEDUP_KEY_CHARS,
    OBSERVATION_TOPIC_CHARS,
    SOURCE_CHARS,
    ULID_CHARS,
)
from memory.limits import OBSERVATION_ACTORS as MAX_ACTORS
from memory.limits import OBSERVATION_BATCH as MAX_BATCH
from memory.limits import OBSERVATION_DEPTH as MAX_DEPTH
from memory.limits import OBSERVATION_EVENT_IDS as MAX_EVENT_IDS
from memory.limits import OBSERVATION_PAYLOAD_BYTES as MAX_PAYLOAD_BYTES
from memory.models.events import MemoryEvent
from memory.models.observations import ObservationStatus
from memory.models.taxonomy import Valence
from memory.observation_schemas import payload_errors
from memory.retain.horizon import order_key_sql
from memory.services.outbox import outbox_fill
from memory.services.retain import retain_enqueue
from memory.services.sql import jsonb_param, server_bound_cursor

NAMESPACE = re.compile(r"^[a-z][a-z0-9_-]*(?::[A-Za-z0-9_.*@+-]+)*$")
REQUIRED = ("source", "category", "timestamp", "target_namespace", "payload_typed")
FIELDS = {"source", "category", "timestamp", "target_namespace", "topic", "actors", "sentiment",
          "sentiment_score", "payload_typed", "correlation", "event_ids", "dedup_key"}

INVALID = "The observation is invalid."

Errors = dict[str, Any]


@dataclass(frozen=True)
class ObservationSubmitResult:
    id: str
    created: bool
    status: str


def _string(value: Any, limit: int, *, required: bool) -> str | None:
    if not isinstance(value, str) or len(value) > limit or (required and not value.strip()):
        return None
    return value


_VALENCES = frozenset(Valence.values)  # (Valence.values builds a list each time)


def _timestamp(value: Any) -> datetime | None:
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value
    return None


def _actors_ok(value: Any) -> bool:
    if not isinstance(value, list | tuple) or len(value) > MAX_ACTORS:
        return False
    return all(
        isinstance(a, Mapping)
        and all(isinstance(v, str) and len(v) <= OBSERVATION_ACTOR_CHARS for v in a.values())
        and (a.get("name") or a.get("key")) and a.get("role")
        for a in value
    )


def _event_ids_ok(value: Any) -> bool:
    return isinstance(value, list | tuple) and len(value) <= MAX_EVENT_IDS and all(
        isinstance(i, str) and 0 < len(i) <= ULID_CHARS for i in value
    )


def _plain_json(value: Any) -> bool:
    """Storable as is: not nested too deeply, no integer beyond 64 bits."""
    try:  # orjson refuses integers beyond 64 bits; fewer brackets than levels is shallow
        data = orjson.dumps(value)
    except TypeError:
        pass
    else:
        if data.count(b"{") + data.count(b"[") <= MAX_DEPTH:
            return True
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return False
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list | tuple):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, int) and not -(2**63) <= item < 2**64:
            return False
    return True


def _correlation(value: Any) -> dict[str, str] | None:
    if value is None:
        return {"session": "", "thread": "", "parent": ""}
    if not isinstance(value, Mapping) or set(value) - {"session", "thread", "parent"}:
        return None
    if not all(isinstance(v, str) and len(v) <= OBSERVATION_CORRELATION_CHARS
               for v in value.values()):
        return None
    return {key: str(value.get(key) or "") for key in ("session", "thread", "parent")}


def _score(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not -1 <= value <= 1:
        return None
    return float(value)


_MESSAGES = {
    "source": f"Must be 1 to {SOURCE_CHARS} characters.",
    "category": f"Must be 1 to {OBSERVATION_CATEGORY_CHARS} characters.",
    "timestamp": "Must be an ISO-8601 date-time with a time zone.",
    "topic": f"Must be a string of at most {OBSERVATION_TOPIC_CHARS} characters.",
    "sentiment_score": "Must be a number from -1 to 1.",
    "correlation": "Must be an object with string session, thread and parent.",
    "dedup_key": f"Must be a string of at most {OBSERVATION_DEDUP_KEY_CHARS} characters.",
}


_EVENT_IDS = f"Must be a list of at most {MAX_EVENT_IDS} event ids."
_NESTING = f"Must nest at most {MAX_DEPTH} levels, with integers of at most 64 bits."


def _check(data: Mapping[str, Any]) -> tuple[dict[str, Any], Errors]:
    """Every field checked; the clean values and the errors by field."""
    errors: Errors = {name: "Unknown field." for name in sorted(set(data) - FIELDS)}
    clean: dict[str, Any] = {
        "source": _string(data.get("source"), SOURCE_CHARS, required=True),
        "category": _string(data.get("category"), OBSERVATION_CATEGORY_CHARS, required=True),
        "timestamp": _timestamp(data.get("timestamp")),
        "target_namespace": data.get("target_namespace"),
        "topic": _string(data.get("topic", ""), OBSERVATION_TOPIC_CHARS, required=False),
        "actors": data.get("actors") or [],
        "sentiment": data.get("sentiment", Valence.NEUTRAL),
        "sentiment_score": _score(data.get("sentiment_score", 0.0)),
        "payload_typed": data.get("payload_typed"),
        "correlation": _correlation(data.get("correlation")),
        "event_ids": data.get("event_ids") or [],
        "dedup_key": _string(data.get("dedup_key", ""), OBSERVATION_DEDUP_KEY_CHARS,
                             required=False),
    }
    errors.update({name: message for name, message in _MESSAGES.items() if clean[name] is None})
    errors.update({name: "This field is required." for name in REQUIRED if name not in data})
    namespace = clean["target_namespace"]
    if (not isinstance(namespace, str) or len(namespace) > NAMESPACE_CHARS
            or not NAMESPACE.match(namespace)):
        errors["target_namespace"] = "Must be a namespace path such as agent:claude-code:rc."
    if not isinstance(clean["sentiment"], str) or clean["sentiment"] not in _VALENCES:
        errors["sentiment"] = f"Must be one of: {', '.join(Valence.values)}."
    if not _actors_ok(data.get("actors", [])):
        errors["actors"] = (f'Must be a list of at most {MAX_ACTORS} objects, each with "role" '
                            'and "name" or "key" (strings).')
    if not _event_ids_ok(data.get("event_ids", [])):
        errors["event_ids"] = _EVENT_IDS
    for name in ("payload_typed", "actors", "correlation"):
        if name not in errors and not _plain_json(data.get(name)):
            errors[name] = _NESTING
    if clean["category"] is not None and "payload_typed" in data:
        problems = payload_errors(clean["category"], clean["payload_typed"])
        if "category" in problems:
            errors["category"] = problems["category"]
        elif problems:
            errors["payload_typed"] = problems
    return clean, errors


def observation_unit_errors(*, category: str, data: Mapping[str, Any]) -> Errors:
    """What `observations_checked` finds wrong with the event ids and the payload of `data`
    as one of `category`: for the units of a tally after its key's first, of which nothing
    else is read (memory/services/observation_tallies.py)."""
    errors: Errors = {}
    if not _event_ids_ok(data.get("event_ids", [])):
        errors["event_ids"] = _EVENT_IDS
    payload = data.get("payload_typed")
    if not _plain_json(payload):
        errors["payload_typed"] = _NESTING
    elif problems := payload_errors(category, payload):
        errors.update(problems if "category" in problems else {"payload_typed": problems})
    return errors


_SANITIZED = ("topic", "actors", "payload_typed", "correlation")


def _sanitized(clean: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """Secrets out of every text (as for events); False when payload_typed is too large."""
    values, _count = redaction.sanitize_value([clean[name] for name in _SANITIZED])
    clean.update(zip(_SANITIZED, values, strict=True))
    size = len(orjson.dumps(clean["payload_typed"]))
    return clean, size <= MAX_PAYLOAD_BYTES


def _dedup_key(clean: Mapping[str, Any]) -> str:
    key = clean["dedup_key"] or orjson.dumps(
        {name: clean[name] for name in ("target_namespace", "topic", "actors", "payload_typed",
                                        "correlation", "event_ids")}
        | {"timestamp": clean["timestamp"].isoformat()},
        option=orjson.OPT_SORT_KEYS,
    ).decode()
    basis = "\x1f".join((clean["source"], clean["category"], key))
    return hashlib.sha256(basis.encode()).hexdigest()


def _unknown_events(batch: Sequence[Mapping[str, Any]]) -> set[str]:
    wanted = {event_id for clean in batch for event_id in clean["event_ids"]}
    if not wanted:
        return set()
    found = set(MemoryEvent.objects.filter(id__in=wanted).values_list("id", flat=True))
    return wanted - found


def _refusal(fields: Errors, *, too_large: bool) -> Invalid:
    return TooLarge(INVALID, fields=fields) if too_large else Invalid(INVALID, fields=fields)


def _checked(observations: Sequence[Any], *,
             check_events: bool) -> tuple[list[dict[str, Any]], Errors, bool]:
    """The clean observations, the problems by index, and whether one was too large."""
    batch: list[dict[str, Any]] = []
    problems: Errors = {}
    too_large = False
    for index, data in enumerate(observations):
        if not isinstance(data, Mapping):
            problems[str(index)] = {"non_field_errors": "Must be an object."}
            continue
        clean, errors = _check(data)
        if not errors:
            clean, fits = _sanitized(clean)
            if not fits:
                errors = {"payload_typed": f"Over the size limit of {MAX_PAYLOAD_BYTES} bytes."}
                too_large = True
        if errors:
            problems[str(index)] = errors
        batch.append(clean)
    if not problems and check_events and (unknown := _unknown_events(batch)):
        for index, clean in enumerate(batch):
            if missing := sorted(set(clean["event_ids"]) & unknown):
                problems[str(index)] = {"event_ids": f"Unknown events: {', '.join(missing[:10])}."}
    return batch, problems, too_large


def _parse(observations: Sequence[Any], *, check_events: bool) -> list[dict[str, Any]]:
    if len(observations) > MAX_BATCH:
        raise Invalid(INVALID, fields={"observations": f"At most {MAX_BATCH} per batch."})
    batch, problems, too_large = _checked(observations, check_events=check_events)
    if problems:
        raise _refusal({"observations": problems}, too_large=too_large)
    return batch


def observations_checked(*, observations: Sequence[Any],
                         check_events: bool = True) -> list[dict[str, Any]]:
    """The observations checked and sanitized as `observation_submit_many` stores them, each
    with its dedup key, or its Invalid (TooLarge) naming every problem: for a service that
    stores them its own way (memory/services/observation_tallies.py)."""
    return [{**clean, "dedup_key": _dedup_key(clean)}
            for clean in _parse(observations, check_events=check_events)]


def _parse_one(data: Any) -> dict[str, Any]:
    batch, problems, too_large = _checked([data], check_events=True)
    if problems:
        raise _refusal(problems["0"], too_large=too_large)
    return batch[0]


# One statement per batch, rows ordered by dedup key (concurrent batches wait on shared keys in
# the same order: no deadlock; sorted in Python, a function scan keeps the document's order,
# and bound on the server: see sql.py). A key already stored is skipped and not returned.
_INSERT = """
INSERT INTO memory_observation
    (id, dedup_key, source, timestamp, recorded_at, category, actors, topic, sentiment,
     sentiment_score, payload_typed, correlation_session, correlation_thread,
     correlation_parent, target_namespace, event_ids, status, attempts, error, order_key)
SELECT u.id, u.dedup_key, u.source, u.timestamp, %s, u.category, u.actors, u.topic,
       u.sentiment, u.sentiment_score, u.payload_typed, u.session, u.thread, u.parent,
       u.target_namespace, w.event_ids, 'pending', 0, '',
       """ + order_key_sql(event_ids="w.event_ids", timestamp="u.timestamp",
                           dedup_key="u.dedup_key") + """
FROM jsonb_to_recordset(%s::jsonb) AS u(
    id text, dedup_key text, source text, timestamp timestamptz, category text, actors jsonb,
    topic text, sentiment text, sentiment_score float8, payload_typed jsonb, session text,
    thread text, parent text, target_namespace text, event_ids jsonb)
CROSS JOIN LATERAL (SELECT ARRAY(SELECT jsonb_array_elements_text(u.event_ids))
                    AS event_ids) AS w
ON CONFLICT (dedup_key) DO NOTHING
RETURNING dedup_key, id
"""

_STORED = """
SELECT dedup_key, id, status FROM memory_observation WHERE dedup_key = ANY(%s::text[])
"""

_COLUMNS = ("id", "dedup_key", "source", "timestamp", "category", "actors", "topic",
            "sentiment", "sentiment_score", "payload_typed", "session", "thread", "parent",
            "target_namespace", "event_ids")


def _row(clean: Mapping[str, Any], pk: str) -> dict[str, Any]:
    return {**clean, **clean["correlation"], "id": pk, "dedup_key": _dedup_key(clean)}


def _insert(rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple[str, str]]:
    """dedup key -> (id, status) of every row, stored now or before. The batch travels as
    one JSON document (far cheaper to send than one array per column)."""
    unique = sorted({row["dedup_key"]: row for row in reversed(rows)}.values(),
                    key=lambda row: row["dedup_key"])
    document = orjson.dumps([{name: row[name] for name in _COLUMNS} for row in unique])
    with server_bound_cursor() as cursor:
        params: list[Any] = [clock.now(), jsonb_param(document)]
        cursor.execute(_INSERT, params)
        stored = {key: (pk, ObservationStatus.PENDING.value) for key, pk in cursor.fetchall()}
        others = [row["dedup_key"] for row in unique if row["dedup_key"] not in stored]
        if others:
            cursor.execute(_STORED, [others])
            stored.update({key: (pk, status) for key, pk, status in cursor.fetchall()})
    return stored


def observation_submit_many(
    *, observations: Sequence[Mapping[str, Any]], check_events: bool = True
) -> list[ObservationSubmitResult]:
    """Store a batch of observations, all or none: Invalid (TooLarge when a payload is over
    the limit) names every problem, fields {"observations": {index: {field: problem}}}.
    One already stored (same dedup key) is not stored again: its result has created=False;
    of equal ones inside the batch, the first is stored. `check_events=False` is for callers
    whose event ids come from the log itself (the analyzers): it skips one lookup."""
    return _store(_parse(observations, check_events=check_events))


def _store(batch: Sequence[Mapping[str, Any]]) -> list[ObservationSubmitResult]:
    # ULIDs as the model's default makes them, minted for the batch at once (~4 us each).
    rows = [_row(clean, pk) for clean, pk in zip(batch, new_event_ids(len(batch)), strict=True)]
    if not rows:
        return []
    with transaction.atomic():
        stored = _insert(rows)
        results = []
        for row in rows:
            # A row whose id is not the stored one lost to an earlier row with its key.
            pk, status = stored[row["dedup_key"]]
            results.append(ObservationSubmitResult(id=pk, created=pk == row["id"],
                                                   status=status))
        created = [r.id for r in results if r.created]
        retain_enqueue(observation_ids=created)
        outbox_fill(observation_ids=created)  # published on NATS when on (docs/nats.md)
    return results


def observation_submit(
    *,
    source: str,
    category: str,
    timestamp: datetime | str,
    target_namespace: str,
    payload_typed: Mapping[str, Any],
    topic: str = "",
    actors: Sequence[Mapping[str, str]] = (),
    sentiment: str = Valence.NEUTRAL,
    sentiment_score: float = 0.0,
    correlation: Mapping[str, str] | None = None,
    event_ids: Sequence[str] = (),
    dedup_key: str = "",
) -> ObservationSubmitResult:
    """Store one observation (or find the one already stored with the same dedup key)."""
    data = {
        "source": source, "category": category, "timestamp": timestamp,
        "target_namespace": target_namespace, "payload_typed": payload_typed, "topic": topic,
        "actors": list(actors), "sentiment": sentiment, "sentiment_score": sentiment_score,
        "correlation": correlation, "event_ids": list(event_ids), "dedup_key": dedup_key,
    }
    return observation_submit_one(data=data)


def observation_submit_one(*, data: Any) -> ObservationSubmitResult:
    """Store one observation given as a mapping; Invalid (TooLarge) names its bad fields."""
    return _store([_parse_one(data)])[0]


def observation_submit_posted(*, source: str, body: Any) -> ObservationSubmitResult:
    """What POST /api/observations/ asks: one observation, stored under the poster's source."""
    if not isinstance(body, Mapping):
        raise Invalid(fields={"non_field_errors": "Send one observation object."})
    if "source" in body:
        raise Invalid(fields={"source": "Set by the server: the agent's own source."})
    return observation_submit_one(data={**body, "source": source})
