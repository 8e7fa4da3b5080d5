"""POST /api/rebuild/compiled/<key>/: regenerate one entity's compiled truth now, from the
graph and the raw log (resurrection of a faded entity). Operator only."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory.api.permissions import IsOperator
from memory.api.schema import ErrorSerializer, error_responses
from memory.models import CompiledTrigger
from memory.services.compiled_files import compiled_file_path
from memory.services.compiled_truth import compiled_truth_rebuild


class CompiledTruthOutSerializer(serializers.Serializer[Any]):
    key = serializers.CharField()
    version = serializers.IntegerField()
    as_of = serializers.DateTimeField()
    strength = serializers.FloatField(allow_null=True, help_text="Null when pinned.")
    pinned = serializers.BooleanField()
    path = serializers.CharField(help_text="The current version's file on disk.")
    markdown = serializers.CharField()


class CompiledRebuildView(APIView):
    permission_classes = [IsOperator]

    @extend_schema(
        operation_id="rebuild_compiled",
        summary="Regenerate one entity's compiled truth now (operator)",
        request=None,
        responses={201: CompiledTruthOutSerializer, **error_responses(401, 403, 404),
                   409: OpenApiResponse(response=ErrorSerializer, description=(
                       "The entity was merged into another (rebuild the survivor), or the "
                       "sleep cycle is regenerating compiled truths (retry)."))},
    )
    def post(self, request: Request, key: str) -> Response:
        version = compiled_truth_rebuild(key=key, trigger=CompiledTrigger.API, wait=False)
        entity = version.entity
        body = {"key": entity.key, "version": version.version, "as_of": version.as_of,
                "strength": version.strength, "pinned": version.pinned,
                "path": str(compiled_file_path(namespace=entity.namespace.path,
                                               slug=entity.slug)),
                "markdown": version.markdown}
        return Response(CompiledTruthOutSerializer(body).data, status=status.HTTP_201_CREATED)
