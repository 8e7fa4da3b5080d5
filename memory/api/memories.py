"""POST /api/memories/ (one free-text memory, or a batch) and GET /api/memories/ (a page,
with which are not embedded yet). docs/memories.md."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema
from rest_framework import serializers
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory.api.event_serializers import EventAppendResultSerializer
from memory.api.parsers import OrjsonParser, OrjsonRenderer
from memory.api.permissions import request_agent, scope_required
from memory.api.schema import error_responses
from memory.errors import Invalid
from memory.limits import (
    EVENT_BATCH,
    EVENT_PAGE,
    EVENT_PAGE_MAX,
    EVENT_SOURCE_ID_CHARS,
    EVENT_TEXT_CHARS,
    ROW_ID_MAX,
)
from memory.selectors.memories import MemoryFilters, memory_list
from memory.services.memories import memories_remember


class MemoryInSerializer(serializers.Serializer[Any]):
    text = serializers.CharField(help_text="The memory, kept whole; sanitized like every event.")
    occurred_at = serializers.DateTimeField(required=False, help_text="Default: now.")
    project = serializers.CharField(required=False, allow_blank=True,
                                    max_length=EVENT_TEXT_CHARS)
    actor = serializers.CharField(required=False, allow_blank=True, max_length=EVENT_TEXT_CHARS,
                                  help_text="Default: the agent's name.")
    source_id = serializers.CharField(
        required=False, max_length=EVENT_SOURCE_ID_CHARS,
        help_text="Stored once per (source, source_id); default: a hash of the content.")
    metadata = serializers.DictField(required=False)


class MemoryBatchInSerializer(serializers.Serializer[Any]):
    memories = MemoryInSerializer(many=True,
                                  help_text=f"Up to {EVENT_BATCH:,}, stored all or none.")


class MemoryAppendOutSerializer(serializers.Serializer[Any]):
    memories = EventAppendResultSerializer(many=True)


class MemoryQuerySerializer(serializers.Serializer[Any]):
    project = serializers.CharField(required=False)
    actor = serializers.CharField(required=False)
    embedded = serializers.ChoiceField(choices=["true", "false"], required=False,
                                       help_text="false: only those not embedded yet.")
    cursor = serializers.IntegerField(required=False, min_value=0, max_value=ROW_ID_MAX,
                                      help_text="next_cursor of the previous page.")
    limit = serializers.IntegerField(required=False, default=EVENT_PAGE, min_value=1,
                                     max_value=EVENT_PAGE_MAX)


class MemoryOutSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    text = serializers.CharField()
    actor = serializers.CharField()
    project = serializers.CharField()
    occurred_at = serializers.DateTimeField()
    event_id = serializers.CharField()
    source = serializers.CharField()  # type: ignore[assignment]
    source_id = serializers.CharField()
    strength = serializers.FloatField()
    embedded = serializers.BooleanField(help_text="False: its vector is not computed yet.")
    mentions = serializers.ListField(child=serializers.DictField())


class MemoryPageSerializer(serializers.Serializer[Any]):
    memories = MemoryOutSerializer(many=True)
    next_cursor = serializers.IntegerField(allow_null=True)
    has_more = serializers.BooleanField()
    not_embedded = serializers.IntegerField(help_text="Memories still waiting for a vector.")


def _poster(request: Request) -> tuple[str, str]:
    """(source, default actor): the agent's own, or the operator's session."""
    agent = request_agent(request)
    if agent is not None:
        return agent.source, agent.name
    username = request.user.get_username()
    return f"operator:{username}", username


def _memories(data: Any) -> tuple[list[Any], bool]:
    if not isinstance(data, dict):
        raise Invalid(fields={"non_field_errors": 'Send one memory or {"memories": [...]}.'})
    if "memories" not in data:
        return [data], False
    extra = sorted(str(key) for key in data if key != "memories")
    if extra:
        raise Invalid(fields={key: "Unknown field beside memories." for key in extra})
    if not isinstance(data["memories"], list):
        raise Invalid(fields={"memories": "Must be a list of memories."})
    return data["memories"], True


def _flag(value: str | None) -> bool | None:
    return None if value is None else value == "true"


class MemoriesView(APIView):
    parser_classes = [OrjsonParser]
    renderer_classes = [OrjsonRenderer]

    def get_permissions(self) -> list[BasePermission]:
        scope = "memories:write" if self.request.method == "POST" else "memories:read"
        return [scope_required(scope)()]

    @extend_schema(
        operation_id="memories_remember",
        summary="Remember one free-text memory, or a batch of up to 1,000 (all or none)",
        request=PolymorphicProxySerializer(
            component_name="MemoryPost",
            serializers=[MemoryInSerializer, MemoryBatchInSerializer],
            resource_type_field_name=None,
        ),
        responses={201: MemoryAppendOutSerializer, **error_responses(400, 401, 403, 413, 429)},
    )
    def post(self, request: Request) -> Response:
        source, actor = _poster(request)
        memories, batch = _memories(request.data)
        results = memories_remember(source=source, memories=memories, batch=batch,
                                    default_actor=actor)
        return Response({"memories": [asdict(result) for result in results]}, status=201)

    @extend_schema(
        operation_id="memories_list",
        summary="Memories consolidated so far, a page at a time (embedded=false: not yet)",
        parameters=[MemoryQuerySerializer],
        responses={200: MemoryPageSerializer, **error_responses(400, 401, 403, 429)},
    )
    def get(self, request: Request) -> Response:
        query = MemoryQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        params = query.validated_data
        page = memory_list(
            filters=MemoryFilters(project=params.get("project"), actor=params.get("actor"),
                                  embedded=_flag(params.get("embedded"))),
            cursor=params.get("cursor"), limit=params["limit"])
        memories = []
        for hit in page.memories:
            item = asdict(hit)
            item.pop("rank")
            item["mentions"] = [{"key": key, "role": role} for key, role in hit.mentions]
            memories.append(item)
        return Response({"memories": memories, "next_cursor": page.cursor,
                         "has_more": page.has_more, "not_embedded": page.not_embedded})

