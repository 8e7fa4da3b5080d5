"""POST /api/events/ (one event or a batch) and GET /api/events/ (filtered, cursor pages)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import orjson
from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from cortex_site.api_errors import error_body
from memory.api.event_serializers import (
    EventAppendOutSerializer,
    EventBatchInSerializer,
    EventInSerializer,
    EventOutSerializer,
    EventPageSerializer,
    EventQuerySerializer,
)
from memory.api.parsers import OrjsonParser, OrjsonRenderer
from memory.api.permissions import request_agent, scope_required
from memory.api.schema import error_responses
from memory.selectors.events import BadCursor, EventFilters, event_list
from memory.services.events import (
    EventAppendResult,
    EventsRejected,
    IdempotencyKeyConflict,
    event_append_keyed,
    event_append_many,
)

IDEMPOTENCY_HEADER = "Idempotency-Key"


def request_source(request: Request) -> str:
    """Events are stored under the agent's own source; the operator's session under its name."""
    agent = request_agent(request)
    if agent is not None:
        return agent.source
    return f"operator:{request.user.get_username()}"  # type: ignore[union-attr]


def cursor_encode(position: Sequence[Any] | None) -> str | None:
    if position is None:
        return None
    return base64.urlsafe_b64encode(orjson.dumps(list(position))).decode().rstrip("=")


def cursor_decode(text: str) -> Any:
    try:
        return orjson.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (binascii.Error, ValueError, orjson.JSONDecodeError) as error:
        raise ValidationError({"cursor": "Not a cursor handed out by this API."}) from error


def _rejected(error: EventsRejected, *, batch: bool) -> Response:
    fields = error.fields
    if "events" not in fields:
        fields = {"events": fields} if batch else fields.get("0", fields)
    if error.too_large:
        body = error_body("payload_too_large", "A payload is over the size limit.", fields)
        return Response(body, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    return Response(error_body("invalid", "The request is invalid.", fields), status=400)


def _batch_events(data: dict[str, Any]) -> list[Any]:
    extra = sorted(str(key) for key in data if key != "events")
    if extra:
        raise ValidationError({key: "Unknown field beside events." for key in extra})
    events = data["events"]
    if not isinstance(events, list):
        raise ValidationError({"events": "Must be a list of events."})
    if len(events) > settings.CORTEX_MAX_BATCH:
        limit = settings.CORTEX_MAX_BATCH
        raise ValidationError({"events": f"At most {limit} events per request."})
    return events


def _append(request: Request, source: str) -> list[EventAppendResult]:
    data, key = request.data, request.headers.get(IDEMPOTENCY_HEADER)
    if not isinstance(data, dict):
        raise ValidationError({"non_field_errors": 'Send one event object or {"events": [...]}.'})
    if "events" in data:
        if key is not None:
            raise ValidationError({IDEMPOTENCY_HEADER: "Only for single events."})
        return event_append_many(source=source, events=_batch_events(data))
    if key is None:
        return event_append_many(source=source, events=[data])
    if not key.strip() or len(key) > 255:
        raise ValidationError({IDEMPOTENCY_HEADER: "Must be 1 to 255 characters."})
    return [event_append_keyed(source=source, event=data, idempotency_key=key)]


class EventsView(APIView):
    parser_classes = [OrjsonParser]
    renderer_classes = [OrjsonRenderer]

    def get_permissions(self) -> list[BasePermission]:
        scope = "events:write" if self.request.method == "POST" else "events:read"
        return [scope_required(scope)()]

    @extend_schema(
        operation_id="events_append",
        summary="Append one event, or a batch of up to 1,000 (all or none)",
        request=PolymorphicProxySerializer(
            component_name="EventPost",
            serializers=[EventInSerializer, EventBatchInSerializer],
            resource_type_field_name=None,
        ),
        parameters=[
            OpenApiParameter(
                IDEMPOTENCY_HEADER,
                location=OpenApiParameter.HEADER,
                required=False,
                description="Single events only: the same key with another body gives 422.",
            )
        ],
        responses={201: EventAppendOutSerializer, **error_responses(400, 401, 403, 413, 422, 429)},
    )
    def post(self, request: Request) -> Response:
        source = request_source(request)
        batch = isinstance(request.data, dict) and "events" in request.data
        try:
            results = _append(request, source)
        except EventsRejected as error:
            return _rejected(error, batch=batch)
        except IdempotencyKeyConflict:
            body = error_body(
                "idempotency_key_reused",
                "This Idempotency-Key was already used with a different body.",
                {IDEMPOTENCY_HEADER: "Already used with a different body."},
            )
            return Response(body, status=status.HTTP_422_UNPROCESSABLE_ENTITY)
        return Response({"events": [asdict(result) for result in results]}, status=201)

    @extend_schema(
        operation_id="events_list",
        summary="Events, filtered, a page at a time",
        parameters=[EventQuerySerializer],
        responses={200: EventPageSerializer, **error_responses(400, 401, 403, 429)},
    )
    def get(self, request: Request) -> Response:
        query = EventQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        params = query.validated_data
        filters = EventFilters(
            **{
                name: params.get(name)
                for name in (
                    "source", "type", "subtype", "project", "occurred_after", "occurred_before"
                )
            }
        )
        cursor = cursor_decode(params["cursor"]) if "cursor" in params else None
        try:
            page = event_list(
                filters=filters,
                cursor=cursor,
                limit=params["limit"],
                newest_first=params["order"] == "newest",
            )
        except BadCursor as error:
            raise ValidationError({"cursor": "Not a cursor handed out by this API."}) from error
        return Response(
            {
                "events": EventOutSerializer(page.events, many=True).data,
                "next_cursor": cursor_encode(page.cursor),
                "has_more": page.has_more,
            }
        )
