"""Free-text memories, first as raw events (docs/memories.md): checked, sanitized by the same
redaction as every event, and stored once per (source, source_id). Without a source_id the
memory's content (text, project, actor, after redaction) gives one, so the same memory
posted twice is stored once. Consolidation (the analyzers, the Retain Job) makes the
Memory rows; `memories_reinforce` counts a recall of them."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection

from memory import redaction
from memory.config import config_get
from memory.errors import Invalid, TooLarge
from memory.services.events import EventAppendResult, event_append_many

MEMORY_TYPE = "memory"
MEMORY_SUBTYPE = "text"
# The stream of memory events, whatever their source (insight.analyzers.memories reads it).
MEMORY_STREAM = f"type:{MEMORY_TYPE}/{MEMORY_SUBTYPE}"
FIELDS = frozenset({"text", "occurred_at", "project", "actor", "source_id", "metadata"})
MAX_TEXT_FIELD = 255
MAX_SOURCE_ID = 512
HASH_PREFIX = "sha256:"

Problems = dict[str, Any]
_appended: list[Callable[[], None]] = []


def memories_appended_register(listener: Callable[[], None]) -> None:
    """Called (inside the transaction, so queue on commit) when new memory events were stored:
    insight queues its analysis of them."""
    if listener not in _appended:
        _appended.append(listener)


def _text_field(memory: Mapping[str, Any], name: str, limit: int, problems: Problems) -> str:
    value = memory.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        problems[name] = "Must be a string."
    elif len(value) > limit:
        problems[name] = f"At most {limit} characters."
    else:
        return value
    return ""


def _memory_text(memory: Mapping[str, Any], problems: Problems) -> tuple[str, bool]:
    """The text, and whether it is over the size limit."""
    text = memory.get("text")
    limit = config_get().memories.max_text_chars
    if not isinstance(text, str):
        problems["text"] = "This field is required." if text is None else "Must be a string."
    elif not text.strip():
        problems["text"] = "May not be blank."
    elif len(text) > limit:
        problems["text"] = f"At most {limit} characters."
        return "", True
    else:
        return text, False
    return "", False


def content_source_id(*, text: str, project: str, actor: str) -> str:
    """The id of a memory sent without one: a hash of its redacted content (a secret never
    enters the hash), whitespace-insensitive."""
    clean, _ = redaction.sanitize_texts([" ".join(text.split()), project, actor])
    digest = hashlib.sha256("\x1f".join(clean).encode()).hexdigest()
    return f"{HASH_PREFIX}{digest[:40]}"


def _event_of(memory: Any, default_actor: str) -> tuple[dict[str, Any] | None, Problems, bool]:
    if not isinstance(memory, Mapping):
        return None, {"non_field_errors": "Each memory must be an object."}, False
    problems: Problems = {str(k): "Unknown field." for k in memory if k not in FIELDS}
    text, too_large = _memory_text(memory, problems)
    project = _text_field(memory, "project", MAX_TEXT_FIELD, problems)
    actor = _text_field(memory, "actor", MAX_TEXT_FIELD, problems) or default_actor
    source_id = _text_field(memory, "source_id", MAX_SOURCE_ID, problems)
    if "source_id" in memory and memory["source_id"] is not None and not source_id.strip() \
            and "source_id" not in problems:
        problems["source_id"] = "May not be blank."
    metadata = memory.get("metadata")
    if metadata is not None and not isinstance(metadata, Mapping):
        problems["metadata"] = "Must be an object."
    occurred_at = memory.get("occurred_at")
    if occurred_at is not None and not isinstance(occurred_at, str | datetime):
        problems["occurred_at"] = "Must be an ISO 8601 date-time."
    if problems:
        return None, problems, too_large
    event = {
        "source_id": source_id or content_source_id(text=text, project=project, actor=actor),
        "type": MEMORY_TYPE, "subtype": MEMORY_SUBTYPE, "actor": actor, "project": project,
        "occurred_at": occurred_at, "payload": {"text": text, "metadata": dict(metadata or {})},
    }
    return event, {}, False


def memory_events_build(*, memories: Sequence[Any], batch: bool = True,
                        default_actor: str = "") -> list[dict[str, Any]]:
    """The raw events of these memories, or Invalid / TooLarge naming every problem (a batch:
    by index, `{"memories": {"0": {"text": ...}}}`; one memory: `{"text": ...}`); nothing is
    written when one memory is wrong."""
    limit = settings.CORTEX_MAX_BATCH
    if len(memories) > limit:
        raise Invalid(f"At most {limit} memories per request.",
                      fields={"memories": f"At most {limit} memories per request."})
    events, problems, too_large = [], {}, False
    for index, memory in enumerate(memories):
        event, errors, over = _event_of(memory, default_actor)
        if event is None:
            problems[str(index)] = errors
            too_large = too_large or over
        else:
            events.append(event)
    if problems:
        error = TooLarge if too_large else Invalid
        raise error(fields={"memories": problems} if batch else problems["0"])
    return events


def _in_memory_terms(error: Invalid | TooLarge, *, batch: bool) -> Invalid | TooLarge:
    """The event layer's refusal (a payload too deep) named by the memory's own fields."""
    by_index = error.fields.get("events")
    if not isinstance(by_index, Mapping):
        return error
    problems = {
        index: {("metadata" if name == "payload" else name): message
                for name, message in fields.items()} if isinstance(fields, Mapping) else fields
        for index, fields in by_index.items()}
    fields = {"memories": problems} if batch else problems.get("0", problems)
    return type(error)(error.message, code=error.code, fields=fields)


def memories_remember(*, source: str, memories: Sequence[Any], batch: bool = True,
                      default_actor: str = "") -> list[EventAppendResult]:
    """Store these memories as raw events under `source` (all or none); one result per
    memory, in order (`created: False`: it was already stored)."""
    events = memory_events_build(memories=memories, batch=batch, default_actor=default_actor)
    try:
        results = event_append_many(source=source, events=events)
    except (Invalid, TooLarge) as error:
        raise _in_memory_terms(error, batch=batch) from None
    if any(result.created for result in results):
        for listener in _appended:
            listener()
    return results


def memories_reinforce(*, memory_ids: Sequence[int], now: datetime) -> int:
    """A recall of these memories (one statement): retrieval_count + 1, last_reinforced_at
    moved to `now` if later. Returns how many rows changed."""
    if not memory_ids:
        return 0
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE memory_memory SET retrieval_count = retrieval_count + 1, "
            "last_reinforced_at = GREATEST(last_reinforced_at, %s) WHERE id = ANY(%s)",
            [now, sorted(set(memory_ids))])
        return int(cursor.rowcount)
