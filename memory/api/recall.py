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
from memory.queries import RecallQuerySerializer, recall_answer


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
        return Response(recall_answer(params.validated_data))
