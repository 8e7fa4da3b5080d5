"""`GET /api/recall/`: ranked hits over the whole graph (docs/recall.md); adapts only."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory.api.permissions import scope_required
from memory.api.schema import error_responses
from memory.limits import FILTER_CHARS, NAMESPACE_CHARS, RECALL_QUERY_CHARS
from memory.models import MemoryType, Referent
from memory.selectors.recall import RecallFilters
from memory.services.recall import recall_run


class RecallQuerySerializer(serializers.Serializer[Any]):
    q = serializers.CharField(max_length=RECALL_QUERY_CHARS,
                              help_text="What to recall, in any words.")
    unit = serializers.ChoiceField(choices=["entity", "memory"], default="entity")
    namespace = serializers.CharField(max_length=NAMESPACE_CHARS, required=False, default="",
                                      help_text="A namespace prefix, e.g. world:person.")
    memory_type = serializers.ChoiceField(choices=MemoryType.choices, required=False)
    referent = serializers.ChoiceField(choices=Referent.choices, required=False)
    project = serializers.CharField(max_length=FILTER_CHARS, required=False, default="")
    actor = serializers.CharField(max_length=FILTER_CHARS, required=False, default="")
    limit = serializers.IntegerField(min_value=1, max_value=100, required=False)
    as_of = serializers.DateTimeField(required=False,
                                      help_text="Evaluate strengths and weights at this time.")
    include_faded = serializers.BooleanField(default=False)
    reinforce = serializers.BooleanField(default=True)


class RecallHitSerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=["entity", "memory", "fact"])
    key = serializers.CharField(required=False, help_text="unit=entity")
    name = serializers.CharField(required=False, help_text="unit=entity")
    id = serializers.CharField(required=False, help_text="unit=memory: a memory or fact id")
    text = serializers.CharField(required=False, help_text="unit=memory")
    score = serializers.FloatField()
    strength = serializers.FloatField(allow_null=True)
    pinned = serializers.BooleanField()
    snippet = serializers.CharField(allow_blank=True)
    relations = serializers.ListField(child=serializers.CharField())
    provenance = serializers.ListField(child=serializers.DictField(child=serializers.CharField()))
    matched = serializers.ListField(child=serializers.CharField())
    strategies = serializers.DictField(child=serializers.FloatField())


class RecallResponseSerializer(serializers.Serializer[Any]):
    query = serializers.CharField()
    unit = serializers.CharField()
    hits = RecallHitSerializer(many=True)
    reinforced = serializers.IntegerField()


class RecallView(APIView):
    permission_classes = [scope_required("recall:read")]

    @extend_schema(
        operation_id="recall",
        summary="Ranked entities or memories for a query; the hits are reinforced",
        parameters=[RecallQuerySerializer],
        responses={200: RecallResponseSerializer, **error_responses(400, 401, 403, 429)},
    )
    def get(self, request: Request) -> Response:
        params = RecallQuerySerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        filters = RecallFilters(namespace=data["namespace"], project=data["project"],
                                actor=data["actor"], memory_type=data.get("memory_type", ""),
                                referent=data.get("referent", ""))
        result = recall_run(query=data["q"], unit=data["unit"], filters=filters,
                            limit=data.get("limit"), as_of=data.get("as_of"),
                            include_faded=data["include_faded"], reinforce=data["reinforce"])
        return Response({"query": result.query, "unit": result.unit,
                         "hits": [hit.as_dict() for hit in result.hits],
                         "reinforced": result.reinforced})
