"""POST /api/events/ (one event or a batch) and GET /api/events/ (filtered, cursor pages)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import orjson
from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer, extend_schema
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

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
from memory.limits import EVENT_BATCH
from memory.selectors.events import BadCursor, EventFilters, event_list
from memory.services.event_input import IDEMPOTENCY_HEADER
from memory.services.events import event_append_posted


def request_source(request: Request) -> str:
    """Events are stored under the agent's own source; the operator's session under its name."""
    agent = request_agent(request)
    if agent is not None:
        return agent.source
    return f"operator:{request.user.get_username()}"


def cursor_encode(position: Sequence[Any] | None) -> str | None:
    if position is None:
        return None
    return base64.urlsafe_b64encode(orjson.dumps(list(position))).decode().rstrip("=")


def cursor_decode(text: str) -> Any:
    try:
        return orjson.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (binascii.Error, ValueError, orjson.JSONDecodeError) as error:
        raise BadCursor() from error


class EventsView(APIView):
    parser_classes = [OrjsonParser]
    renderer_classes = [OrjsonRenderer]

    def get_permissions(self) -> list[BasePermission]:
        scope = "events:write" if self.request.method == "POST" else "events:read"
        return [scope_required(scope)()]

    @extend_schema(
        operation_id="events_append",
        summary=f"Append one event, or a batch of up to {EVENT_BATCH:,} (all or none)",
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
        results = event_append_posted(
            source=request_source(request),
            body=request.data,
            idempotency_key=request.headers.get(IDEMPOTENCY_HEADER),
        )
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
        page = event_list(
            filters=filters,
            cursor=cursor,
            limit=params["limit"],
            newest_first=params["order"] == "newest",
        )
        return Response(
            {
                "events": EventOutSerializer(page.events, many=True).data,
                "next_cursor": cursor_encode(page.cursor),
                "has_more": page.has_more,
            }
        )
