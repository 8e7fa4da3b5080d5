"""`POST /api/context/`: the prompt context for an agent's query (docs/context.md); adapts."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory.api.permissions import request_agent, scope_required
from memory.api.schema import error_responses
from memory.queries import ContextRequestSerializer, context_answer


class InjectedSerializer(serializers.Serializer[Any]):
    key = serializers.CharField()
    strength = serializers.FloatField(allow_null=True)
    pinned = serializers.BooleanField()
    tokens = serializers.IntegerField()
    section = serializers.CharField()
    short = serializers.BooleanField()


class DroppedSerializer(serializers.Serializer[Any]):
    key = serializers.CharField()
    tokens = serializers.IntegerField()
    reason = serializers.CharField()


# Built from a dict: a field named `context` would shadow Serializer.context in a class body.
ContextResponseSerializer = inline_serializer("ContextResponse", {
    "context": serializers.CharField(allow_blank=True, help_text="Fenced markdown, or empty."),
    "entities": InjectedSerializer(many=True),
    "tokens_used": serializers.IntegerField(),
    "budget_tokens": serializers.IntegerField(),
    "dropped": DroppedSerializer(many=True),
    "already_given": serializers.ListField(child=serializers.CharField()),
})


class ContextView(APIView):
    permission_classes = [scope_required("context:read")]

    @extend_schema(
        operation_id="context",
        summary="Prompt context: pinned first, then the strongest relevant, within a budget",
        request=ContextRequestSerializer,
        responses={200: ContextResponseSerializer, **error_responses(400, 401, 403, 413, 429)},
    )
    def post(self, request: Request) -> Response:
        body = ContextRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        agent = request_agent(request)
        return Response(context_answer(body.validated_data,
                                       agent=agent.name if agent else "operator"))
