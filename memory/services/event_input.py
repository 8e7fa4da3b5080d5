"""Checks and normalizes the events producers and agents hand to Layer 1.

Every problem is reported against the field that has it; nothing echoes a value (it might be
a secret). The whole batch is refused when one event is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from memory import clock, redaction
from memory.errors import Invalid, TooLarge
from memory.event_payload import payload_pack
from memory.limits import EVENT_SOURCE_ID_CHARS as MAX_SOURCE_ID_CHARS
from memory.limits import EVENT_TEXT_CHARS as MAX_TEXT_CHARS
from memory.limits import IDEMPOTENCY_KEY_CHARS
from memory.models.events import DECISION_TYPE

TEXT_FIELDS = ("type", "subtype", "actor", "project")

CORRELATION_FIELDS = ("session", "thread", "parent")
SERVER_OWNED = frozenset({"id", "recorded_at", "source", "redaction_count", "txid"})
ALLOWED = frozenset({"source_id", "occurred_at", "correlation", "payload", *TEXT_FIELDS})
_CORRELATION_SET = frozenset(CORRELATION_FIELDS)

IDEMPOTENCY_HEADER = "Idempotency-Key"
TOO_LARGE = "A payload is over the size limit."

Errors = dict[str, Any]


@dataclass(slots=True)  # not frozen: one is made per event, and frozen's __init__ is ~2x slower
class EventRow:
    source_id: str
    occurred_at: datetime
    type: str
    subtype: str
    actor: str
    project: str
    correlation_session: str
    correlation_thread: str
    correlation_parent: str
    payload_stored: bytes  # the sanitized payload's JSON as stored (memory.event_payload)
    redaction_count: int

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled as its fields (reader processes hand batches over): ~4x cheaper both ways
        # than a slotted dataclass's default state.
        return EventRow, tuple(getattr(self, name) for name in self.__slots__)


def _text(value: Any, *, limit: int, required: bool = False) -> tuple[str, str | None]:
    if value is None:
        return "", ("This field is required." if required else None)
    if not isinstance(value, str):
        return "", "Must be a string."
    if required and not value.strip():
        return "", "May not be blank."
    if len(value) > limit:
        return "", f"At most {limit} characters."
    return value, None


def _occurred_at(value: Any) -> tuple[datetime, str | None]:
    if value is None:
        return clock.now(), None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return clock.now(), "Must be an ISO 8601 date-time."
    if not isinstance(value, datetime):
        return clock.now(), "Must be an ISO 8601 date-time."
    # A timestamp without an offset is read as UTC.
    aware = value if value.tzinfo else value.replace(tzinfo=UTC)
    try:
        return aware.astimezone(UTC), None
    except OverflowError:
        return clock.now(), "Out of range (years 1 to 9999 in UTC)."


def _correlation(value: Any, errors: Errors) -> list[str]:
    if value is None:
        return ["", "", ""]
    if not isinstance(value, Mapping):
        errors["correlation"] = "Must be an object with session, thread and parent."
        return ["", "", ""]
    unknown = sorted(set(value) - set(CORRELATION_FIELDS))
    nested: Errors = {str(key): "Unknown field." for key in unknown}
    out = []
    for name in CORRELATION_FIELDS:
        text, error = _text(value.get(name), limit=MAX_TEXT_CHARS)
        if error:
            nested[name] = error
        out.append(text)
    if nested:
        errors["correlation"] = nested
    return out


def _unknown_fields(event: Mapping[str, Any], errors: Errors) -> None:
    for key in event:
        if key in SERVER_OWNED:
            errors[str(key)] = "Set by the server; it cannot be sent."
        elif key not in ALLOWED:
            errors[str(key)] = "Unknown field."


def _is_mapping(value: Any) -> bool:
    """isinstance(value, Mapping), a dict (the usual case) answered without the ABC check."""
    return type(value) is dict or isinstance(value, Mapping)


def _quick_fields(event: Mapping[str, Any]) -> tuple[str, dict[str, str], list[str]] | None:
    """source_id, the text fields and the correlation of an event with nothing wrong in them
    (the usual case, checked in one go), or None: then the full check names what is wrong."""
    if not event.keys() <= ALLOWED:
        return None
    source_id = event.get("source_id")
    if not isinstance(source_id, str) or len(source_id) > MAX_SOURCE_ID_CHARS:
        return None
    if not source_id.strip():
        return None
    correlation = event.get("correlation")
    if correlation is None:
        correlation = {}
    elif not _is_mapping(correlation) or not correlation.keys() <= _CORRELATION_SET:
        return None
    texts, parts = {}, []
    # "" for a missing field; a string within the limit (a str subclass: the full check)
    for name in TEXT_FIELDS:
        text = event.get(name)
        if text is None:
            text = ""
        elif type(text) is not str or len(text) > MAX_TEXT_CHARS:
            return None
        texts[name] = text
    for name in CORRELATION_FIELDS:
        text = correlation.get(name)
        if text is None:
            text = ""
        elif type(text) is not str or len(text) > MAX_TEXT_CHARS:
            return None
        parts.append(text)
    return source_id, texts, parts


def event_row_parse(event: Any, *, max_payload_bytes: int) -> tuple[EventRow | None, Errors, bool]:
    """One event -> (row, errors, payload too large). The row is sanitized."""
    if not _is_mapping(event):
        return None, {"non_field_errors": "Each event must be an object."}, False
    quick = _quick_fields(event)
    if quick is not None:
        occurred_at, error = _occurred_at(event.get("occurred_at"))
        payload = event.get("payload")
        payload = {} if payload is None else payload
        if error is None and _is_mapping(payload):
            source_id, texts, correlation = quick
            return _sanitized_row(source_id, texts, occurred_at, correlation, payload,
                                  max_payload_bytes=max_payload_bytes)
    return _checked_row(event, max_payload_bytes=max_payload_bytes)


def _checked_row(
    event: Mapping[str, Any], *, max_payload_bytes: int
) -> tuple[EventRow | None, Errors, bool]:
    """Every field checked on its own, each problem named."""
    errors: Errors = {}
    _unknown_fields(event, errors)
    source_id, error = _text(event.get("source_id"), limit=MAX_SOURCE_ID_CHARS, required=True)
    if error:
        errors["source_id"] = error
    texts = {}
    for name in TEXT_FIELDS:
        texts[name], error = _text(event.get(name), limit=MAX_TEXT_CHARS)
        if error:
            errors[name] = error
    occurred_at, error = _occurred_at(event.get("occurred_at"))
    if error:
        errors["occurred_at"] = error
    correlation = _correlation(event.get("correlation"), errors)
    payload = event.get("payload")
    if payload is None:
        payload = {}
    if not isinstance(payload, Mapping):
        errors["payload"] = "Must be an object."
    if errors:
        return None, errors, False
    return _sanitized_row(
        source_id, texts, occurred_at, correlation, payload, max_payload_bytes=max_payload_bytes
    )


def _sanitized_row(
    source_id: str,
    texts: dict[str, str],
    occurred_at: datetime,
    correlation: list[str],
    payload: Mapping[str, Any],
    *,
    max_payload_bytes: int,
) -> tuple[EventRow | None, Errors, bool]:
    clean_texts, total = redaction.sanitize_texts(
        [source_id, *(texts[name] for name in TEXT_FIELDS), *correlation]
    )
    try:
        payload_bytes, count, by_orjson = redaction.sanitized_json(payload)
    except redaction.TooDeep:
        return None, {"payload": f"Nested deeper than {redaction.MAX_DEPTH} levels."}, False
    total += count
    if len(payload_bytes) > max_payload_bytes:
        return None, {"payload": f"Over the size limit of {max_payload_bytes} bytes."}, True
    source_id, type_, subtype, actor, project, session, thread, parent = clean_texts
    row = EventRow(
        source_id=source_id, occurred_at=occurred_at, type=type_, subtype=subtype, actor=actor,
        project=project, correlation_session=session, correlation_thread=thread,
        correlation_parent=parent, redaction_count=total,
        payload_stored=payload_pack(payload_bytes, exact_with_orjson=by_orjson),
    )
    return row, {}, False


def _refusal(fields: Errors, *, too_large: bool) -> Invalid:
    return TooLarge(TOO_LARGE, fields=fields) if too_large else Invalid(fields=fields)


def event_one_parse(event: Any, *, max_payload_bytes: int) -> EventRow:
    """One event, checked and sanitized, or Invalid (TooLarge) naming its bad fields."""
    row, errors, over = event_row_parse(event, max_payload_bytes=max_payload_bytes)
    if row is None:
        raise _refusal(errors, too_large=over)
    return row


def event_rows_parse(
    events: Sequence[Any], *, max_batch: int, max_payload_bytes: int
) -> list[EventRow]:
    """All events of a batch, checked and sanitized, or Invalid (TooLarge when a payload is
    over the limit) naming every problem: fields {"events": {index: {field: problem}}}."""
    if len(events) > max_batch:
        raise Invalid(fields={"events": f"At most {max_batch} events per request."})
    rows: list[EventRow] = []
    problems: dict[str, Any] = {}
    too_large = False
    for index, event in enumerate(events):
        row, errors, over = event_row_parse(event, max_payload_bytes=max_payload_bytes)
        if row is None:
            problems[str(index)] = errors
            too_large = too_large or over
        else:
            rows.append(row)
    if problems:
        raise _refusal({"events": problems}, too_large=too_large)
    return rows


def event_types_refuse_reserved(events: Sequence[Any]) -> None:
    """Posted events may not claim the decision type (Invalid, naming each one)."""
    fields = {str(i): {"type": f"'{DECISION_TYPE}' is reserved for Cortex's own decisions."}
              for i, event in enumerate(events)
              if isinstance(event, Mapping) and event.get("type") == DECISION_TYPE}
    if fields:
        raise Invalid(fields={"events": fields} if len(events) > 1 else fields["0"])


def event_post_split(body: Any, idempotency_key: str | None) -> list[Any] | None:
    """What POST /api/events/ carries: the events of a batch, or None for one event (the body
    itself). Invalid when the body is neither, or the Idempotency-Key is misused."""
    if not isinstance(body, Mapping):
        raise Invalid(fields={"non_field_errors": 'Send one event object or {"events": [...]}.'})
    if "events" not in body:
        if idempotency_key is not None and (
            not idempotency_key.strip() or len(idempotency_key) > IDEMPOTENCY_KEY_CHARS
        ):
            limit = IDEMPOTENCY_KEY_CHARS
            raise Invalid(fields={IDEMPOTENCY_HEADER: f"Must be 1 to {limit} characters."})
        return None
    if idempotency_key is not None:
        raise Invalid(fields={IDEMPOTENCY_HEADER: "Only for single events."})
    extra = sorted(str(key) for key in body if key != "events")
    if extra:
        raise Invalid(fields={key: "Unknown field beside events." for key in extra})
    events = body["events"]
    if not isinstance(events, list):
        raise Invalid(fields={"events": "Must be a list of events."})
    return events
