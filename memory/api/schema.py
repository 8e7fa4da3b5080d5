"""OpenAPI pieces shared by the API views: the one error shape and its documented statuses."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

ErrorSerializer = inline_serializer(
    "Error",
    {
        "error": inline_serializer(
            "ErrorBody",
            {
                "code": serializers.CharField(),
                "message": serializers.CharField(),
                "fields": serializers.DictField(
                    help_text="What is wrong, by field name (nested for batches and objects)."
                ),
            },
        )
    },
)

_MEANINGS = {
    400: "Invalid input; `fields` names what is wrong. Nothing was written.",
    401: "No token, or a bad, expired or revoked one.",
    403: "The token lacks the endpoint's scope.",
    404: "Not found.",
    409: "The current state does not allow this (e.g. a proposal already decided).",
    413: "The request or a payload is over the size limit. Nothing was written.",
    422: "The Idempotency-Key was already used with a different body. Nothing was written.",
    429: "Over the agent's rate limit; see Retry-After.",
}


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    return {
        status: OpenApiResponse(response=ErrorSerializer, description=_MEANINGS[status])
        for status in statuses
    }
