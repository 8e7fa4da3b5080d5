"""`/api/entities/`: list and detail (no reinforcement), feedback, pin and unpin (each a
decision in the raw log first: memory.services.feedback). Adapts only."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory.api.permissions import IsOperator, request_agent, scope_required
from memory.api.schema import error_responses
from memory.limits import (
    ENTITY_KEY_CHARS,
    ENTITY_PAGE,
    ENTITY_PAGE_MAX,
    FILTER_CHARS,
    NAMESPACE_CHARS,
)
from memory.models import EntityStatus, MemoryType, Referent
from memory.selectors.entity_views import entity_detail, entity_page, entity_summary
from memory.selectors.recall import RecallFilters
from memory.services.feedback import entity_feedback, entity_pin, entity_unpin


def request_decider(request: Request) -> str:
    """Who decides: `api:<agent>` for a token, `operator:<username>` for an admin session."""
    agent = request_agent(request)
    if agent is not None:
        return f"api:{agent.name}"
    return f"operator:{request.user.get_username()}"


class EntityListQuerySerializer(serializers.Serializer[Any]):
    namespace = serializers.CharField(max_length=NAMESPACE_CHARS, required=False, default="")
    memory_type = serializers.ChoiceField(choices=MemoryType.choices, required=False)
    referent = serializers.ChoiceField(choices=Referent.choices, required=False)
    project = serializers.CharField(max_length=FILTER_CHARS, required=False, default="")
    status = serializers.ChoiceField(choices=[*EntityStatus.values, "all"],
                                     default=EntityStatus.ACTIVE)
    cursor = serializers.CharField(max_length=ENTITY_KEY_CHARS, required=False)
    limit = serializers.IntegerField(min_value=1, max_value=ENTITY_PAGE_MAX, default=ENTITY_PAGE)


class EntitySummarySerializer(serializers.Serializer[Any]):
    key = serializers.CharField()
    name = serializers.CharField(allow_blank=True)
    memory_type = serializers.CharField()
    referent = serializers.CharField()
    pinned = serializers.BooleanField()
    strength = serializers.FloatField(allow_null=True, help_text="Now; null when pinned.")
    route = serializers.CharField()
    status = serializers.CharField()


EntityPageSerializer = inline_serializer("EntityPage", {
    "entities": EntitySummarySerializer(many=True),
    "next_cursor": serializers.CharField(allow_null=True),
})
EntityDetailSerializer = inline_serializer("EntityDetail", {
    **EntitySummarySerializer().get_fields(),
    "namespace": serializers.CharField(), "aliases": serializers.ListField(),
    "retrieval_count": serializers.IntegerField(), "pos": serializers.IntegerField(),
    "neg": serializers.IntegerField(), "last_reinforced_at": serializers.DateTimeField(),
    "created_at": serializers.DateTimeField(),
    "merged_into": serializers.CharField(allow_null=True),
    "counts": serializers.DictField(child=serializers.IntegerField()),
    "relations": serializers.ListField(child=serializers.DictField()),
    "compiled_truth": serializers.DictField(allow_null=True),
})


class FeedbackSerializer(serializers.Serializer[Any]):
    outcome = serializers.ChoiceField(choices=["positive", "negative"])


class EntitiesView(APIView):
    permission_classes = [scope_required("recall:read")]

    @extend_schema(operation_id="entities_list", parameters=[EntityListQuerySerializer],
                   summary="Entities in key order, with strength now (no reinforcement)",
                   responses={200: EntityPageSerializer, **error_responses(400, 401, 403, 429)})
    def get(self, request: Request) -> Response:
        query = EntityListQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        filters = RecallFilters(namespace=data["namespace"], project=data["project"],
                                memory_type=data.get("memory_type", ""),
                                referent=data.get("referent", ""))
        page = entity_page(filters=filters, cursor=data.get("cursor"), limit=data["limit"],
                           status=data["status"])
        return Response({"entities": page.entities, "next_cursor": page.next_cursor})


class EntityView(APIView):
    permission_classes = [scope_required("recall:read")]

    @extend_schema(operation_id="entities_detail",
                   summary="One entity: strength now, counts, relations, compiled truth",
                   responses={200: EntityDetailSerializer,
                              **error_responses(401, 403, 404, 429)})
    def get(self, request: Request, key: str) -> Response:
        return Response(entity_detail(key=key))


class EntityFeedbackView(APIView):
    permission_classes = [scope_required("feedback:write")]

    @extend_schema(operation_id="entities_feedback", request=FeedbackSerializer,
                   summary="Report an outcome on an entity (its reward factor)",
                   responses={200: EntitySummarySerializer,
                              **error_responses(400, 401, 403, 404, 429)})
    def post(self, request: Request, key: str) -> Response:
        body = FeedbackSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        entity = entity_feedback(key=key, outcome=body.validated_data["outcome"],
                                 by=request_decider(request))
        return Response(entity_summary(entity))


class EntityPinView(APIView):
    permission_classes = [IsOperator]
    pin = True

    @extend_schema(request=None, summary="Pin or unpin an entity (operator)",
                   responses={200: EntitySummarySerializer,
                              **error_responses(401, 403, 404, 429)})
    def post(self, request: Request, key: str) -> Response:
        change = entity_pin if self.pin else entity_unpin
        return Response(entity_summary(change(key=key, by=request_decider(request))))


class EntityUnpinView(EntityPinView):
    pin = False
