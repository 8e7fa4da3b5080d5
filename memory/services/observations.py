"""Writing Observations (SPEC section 5): checked against their category's schema,
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

from memory import redaction
from memory.models.events import MemoryEvent
from memory.models.observations import Observation, new_observation_id
from memory.models.taxonomy import Valence
from memory.observation_schemas import payload_errors

MAX_BATCH = 5000
MAX_EVENT_IDS = 1000
MAX_ACTORS = 50
MAX_PAYLOAD_BYTES = 64 * 1024
NAMESPACE = re.compile(r"^[a-z][a-z0-9_-]*(?::[A-Za-z0-9_.*@+-]+)*$")
REQUIRED = ("source", "category", "timestamp", "target_namespace", "payload_typed")
FIELDS = {"source", "category", "timestamp", "target_namespace", "topic", "actors", "sentiment",
          "sentiment_score", "payload_typed", "correlation", "event_ids", "dedup_key"}

Errors = dict[str, Any]


class ObservationInvalid(Exception):
    """Bad input; `fields` says what is wrong, by field (by index for a batch)."""

    def __init__(self, fields: Errors, *, too_large: bool = False) -> None:
        super().__init__("invalid observation")
        self.fields = fields
        self.too_large = too_large


@dataclass(frozen=True)
class ObservationSubmitResult:
    id: str
    created: bool
    status: str


def _string(value: Any, limit: int, *, required: bool) -> str | None:
    if not isinstance(value, str) or len(value) > limit or (required and not value.strip()):
        return None
    return value


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
        isinstance(a, Mapping) and all(isinstance(v, str) and len(v) <= 500 for v in a.values())
        and (a.get("name") or a.get("key")) and a.get("role")
        for a in value
    )


def _event_ids_ok(value: Any) -> bool:
    return isinstance(value, list | tuple) and len(value) <= MAX_EVENT_IDS and all(
        isinstance(i, str) and 0 < len(i) <= 26 for i in value
    )


def _correlation(value: Any) -> dict[str, str] | None:
    if value is None:
        return {"session": "", "thread": "", "parent": ""}
    if not isinstance(value, Mapping) or set(value) - {"session", "thread", "parent"}:
        return None
    if not all(isinstance(v, str) and len(v) <= 500 for v in value.values()):
        return None
    return {key: str(value.get(key) or "") for key in ("session", "thread", "parent")}


def _score(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not -1 <= value <= 1:
        return None
    return float(value)


def _check(data: Mapping[str, Any]) -> tuple[dict[str, Any], Errors]:
    """Every field checked; the clean values and the errors by field."""
    errors: Errors = {name: "Unknown field." for name in sorted(set(data) - FIELDS)}
    clean: dict[str, Any] = {
        "source": _string(data.get("source"), 200, required=True),
        "category": _string(data.get("category"), 64, required=True),
        "timestamp": _timestamp(data.get("timestamp")),
        "target_namespace": data.get("target_namespace"),
        "topic": _string(data.get("topic", ""), 300, required=False),
        "actors": list(data.get("actors") or []),
        "sentiment": data.get("sentiment", Valence.NEUTRAL),
        "sentiment_score": _score(data.get("sentiment_score", 0.0)),
        "payload_typed": data.get("payload_typed"),
        "correlation": _correlation(data.get("correlation")),
        "event_ids": list(data.get("event_ids") or []),
        "dedup_key": _string(data.get("dedup_key", ""), 255, required=False),
    }
    messages = {
        "source": "Must be 1 to 200 characters.",
        "category": "Must be 1 to 64 characters.",
        "timestamp": "Must be an ISO-8601 date-time with a time zone.",
        "topic": "Must be a string of at most 300 characters.",
        "sentiment_score": "Must be a number from -1 to 1.",
        "correlation": "Must be an object with string session, thread and parent.",
        "dedup_key": "Must be a string of at most 255 characters.",
    }
    errors.update({name: message for name, message in messages.items() if clean[name] is None})
    errors.update({name: "This field is required." for name in REQUIRED if name not in data})
    namespace = clean["target_namespace"]
    if not isinstance(namespace, str) or len(namespace) > 255 or not NAMESPACE.match(namespace):
        errors["target_namespace"] = "Must be a namespace path such as agent:claude-code:rc."
    if clean["sentiment"] not in Valence.values:
        errors["sentiment"] = f"Must be one of: {', '.join(Valence.values)}."
    if not _actors_ok(data.get("actors", [])):
        errors["actors"] = (f'Must be a list of at most {MAX_ACTORS} objects, each with "role" '
                            'and "name" or "key" (strings).')
    if not _event_ids_ok(data.get("event_ids", [])):
        errors["event_ids"] = f"Must be a list of at most {MAX_EVENT_IDS} event ids."
    if clean["category"] is not None and "payload_typed" in data:
        problems = payload_errors(clean["category"], clean["payload_typed"])
        if "category" in problems:
            errors["category"] = problems["category"]
        elif problems:
            errors["payload_typed"] = problems
    return clean, errors


def _sanitized(clean: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """Secrets out of every text (as for events); False when payload_typed is too large."""
    for name in ("topic", "actors", "payload_typed", "correlation"):
        clean[name], _count = redaction.sanitize(clean[name])
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


def _parse(observations: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    if len(observations) > MAX_BATCH:
        raise ObservationInvalid({"observations": f"At most {MAX_BATCH} per batch."})
    batch, problems, too_large = [], {}, False
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
    if not problems and (unknown := _unknown_events(batch)):
        for index, clean in enumerate(batch):
            if missing := sorted(set(clean["event_ids"]) & unknown):
                problems[str(index)] = {"event_ids": f"Unknown events: {', '.join(missing[:10])}."}
    if problems:
        raise ObservationInvalid(problems, too_large=too_large)
    return batch


def _row(clean: Mapping[str, Any]) -> Observation:
    correlation = clean["correlation"]
    return Observation(
        id=new_observation_id(), dedup_key=_dedup_key(clean), source=clean["source"],
        timestamp=clean["timestamp"], category=clean["category"], actors=clean["actors"],
        topic=clean["topic"], sentiment=clean["sentiment"],
        sentiment_score=clean["sentiment_score"], payload_typed=clean["payload_typed"],
        correlation_session=correlation["session"], correlation_thread=correlation["thread"],
        correlation_parent=correlation["parent"], target_namespace=clean["target_namespace"],
        event_ids=clean["event_ids"],
    )


def observation_submit_many(
    *, observations: Sequence[Mapping[str, Any]]
) -> list[ObservationSubmitResult]:
    """Store a batch of observations, all or none (ObservationInvalid names every problem).
    One already stored (same dedup key) is not stored again: its result has created=False."""
    rows = [_row(clean) for clean in _parse(observations)]
    if not rows:
        return []
    with transaction.atomic():
        Observation.objects.bulk_create(rows, ignore_conflicts=True, batch_size=1000)
        stored = {
            key: (pk, status)
            for key, pk, status in Observation.objects.filter(
                dedup_key__in=[row.dedup_key for row in rows]
            ).values_list("dedup_key", "id", "status")
        }
    results = []
    for row in rows:
        # A row whose id is not the stored one lost to an earlier row with its key.
        pk, status = stored[row.dedup_key]
        results.append(ObservationSubmitResult(id=pk, created=pk == row.id, status=status))
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
    try:
        return observation_submit_many(observations=[data])[0]
    except ObservationInvalid as error:
        raise ObservationInvalid(error.fields.get("0", error.fields),
                                 too_large=error.too_large) from None
