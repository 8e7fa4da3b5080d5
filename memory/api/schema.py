"""OpenAPI pieces shared by the API views: the one error shape and its documented statuses."""

from __future__ import annotations

from typing import Any

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
    415: "The body is not in a media type the endpoint reads (application/json).",
    429: "Over the agent's rate limit; see Retry-After.",
}


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    return {
        status: OpenApiResponse(response=ErrorSerializer, description=_MEANINGS[status])
        for status in statuses
    }


_ERROR_REF = {"$ref": "#/components/schemas/Error"}
_METHODS = ("get", "put", "post", "patch", "delete")


def _statuses_any_view_may_answer(operation: dict[str, Any]) -> list[int]:
    """What the layers around every view can answer, whatever the view declares: the
    authentication, scope and rate checks of a secured operation; the parser's refusals of
    a body; the URL resolver's 404 for a path parameter it does not match."""
    statuses = []
    if any(requirement for requirement in operation.get("security", [])):
        statuses += [401, 403, 429]
    if "requestBody" in operation:
        statuses += [400, 413, 415]
    if any(parameter.get("in") == "path" for parameter in operation.get("parameters", [])):
        statuses.append(404)
    return statuses


def error_statuses_declare(result: dict[str, Any], generator: Any, request: Any,
                           public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: every operation also declares the error statuses
    of `_statuses_any_view_may_answer`, with the one error shape (a view adding an endpoint
    need not list them; what it declares itself is kept)."""
    if "Error" not in result.get("components", {}).get("schemas", {}):
        return result
    for item in result.get("paths", {}).values():
        for method in _METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            responses = operation.setdefault("responses", {})
            for status in _statuses_any_view_may_answer(operation):
                responses.setdefault(str(status), {
                    "content": {"application/json": {"schema": _ERROR_REF}},
                    "description": _MEANINGS[status],
                })
    return result
