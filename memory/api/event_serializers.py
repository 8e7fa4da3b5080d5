"""The shapes of /api/events/: input (documentation; the service checks), query and output."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from memory.limits import EVENT_BATCH, EVENT_PAGE, EVENT_PAGE_MAX
from memory.limits import EVENT_SOURCE_ID_CHARS as MAX_SOURCE_ID_CHARS
from memory.limits import EVENT_TEXT_CHARS as MAX_TEXT_CHARS
from memory.models.events import MemoryEvent


class CorrelationSerializer(serializers.Serializer[Any]):
    session = serializers.CharField(required=False, allow_blank=True, max_length=MAX_TEXT_CHARS)
    thread = serializers.CharField(required=False, allow_blank=True, max_length=MAX_TEXT_CHARS)
    parent = serializers.CharField(  # type: ignore[assignment]
        required=False, allow_blank=True, max_length=MAX_TEXT_CHARS
    )


class EventInSerializer(serializers.Serializer[Any]):
    """One event. The source is the agent's own; id and recorded_at are the server's."""

    source_id = serializers.CharField(
        max_length=MAX_SOURCE_ID_CHARS,
        help_text="The event's id at its source; (source, source_id) is stored once.",
    )
    type = serializers.CharField(required=False, allow_blank=True, max_length=MAX_TEXT_CHARS)
    subtype = serializers.CharField(required=False, allow_blank=True, max_length=MAX_TEXT_CHARS)
    occurred_at = serializers.DateTimeField(
        required=False, help_text="ISO 8601; without an offset, UTC. Default: now."
    )
    actor = serializers.CharField(required=False, allow_blank=True, max_length=MAX_TEXT_CHARS)
    project = serializers.CharField(required=False, allow_blank=True, max_length=MAX_TEXT_CHARS)
    correlation = CorrelationSerializer(required=False)
    payload = serializers.DictField(
        required=False, help_text="Any JSON object, up to CORTEX_MAX_PAYLOAD_BYTES; sanitized."
    )


class EventBatchInSerializer(serializers.Serializer[Any]):
    events = EventInSerializer(
        many=True, help_text=f"Up to {EVENT_BATCH:,} events, stored all or none."
    )


class EventAppendResultSerializer(serializers.Serializer[Any]):
    id = serializers.CharField(help_text="The stored event's ULID.")
    source_id = serializers.CharField()
    created = serializers.BooleanField(help_text="False: it was already stored.")


class EventAppendOutSerializer(serializers.Serializer[Any]):
    events = EventAppendResultSerializer(many=True)


class EventQuerySerializer(serializers.Serializer[Any]):
    source = serializers.CharField(required=False)  # type: ignore[assignment]
    type = serializers.CharField(required=False)
    subtype = serializers.CharField(required=False)
    project = serializers.CharField(required=False)
    occurred_after = serializers.DateTimeField(required=False, help_text="Inclusive.")
    occurred_before = serializers.DateTimeField(required=False, help_text="Exclusive.")
    order = serializers.ChoiceField(
        choices=["commit", "newest"],
        default="commit",
        help_text="commit: oldest first in commit order, a feed that never skips an event "
        "committed late (poll with next_cursor); newest: newest first.",
    )
    cursor = serializers.CharField(required=False, help_text="next_cursor of the previous page.")
    limit = serializers.IntegerField(
        required=False, default=EVENT_PAGE, min_value=1, max_value=EVENT_PAGE_MAX
    )


class EventOutSerializer(serializers.ModelSerializer[MemoryEvent]):
    correlation = serializers.DictField(child=serializers.CharField(), read_only=True)

    class Meta:
        model = MemoryEvent
        fields = [
            "id", "source", "source_id", "occurred_at", "recorded_at", "type", "subtype",
            "actor", "project", "correlation", "payload", "redaction_count",
        ]


class EventPageSerializer(serializers.Serializer[Any]):
    events = EventOutSerializer(many=True)
    next_cursor = serializers.CharField(
        allow_null=True, help_text="Pass as `cursor` for the next page (or to poll for more)."
    )
    has_more = serializers.BooleanField()
