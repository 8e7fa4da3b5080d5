"""One error shape for every API error: {"error": {"code", "message", "fields"}}: a
memory.errors.DomainError raised by a service, DRF's own errors (validation, authentication,
permission, throttling, parsing), Django's (too large a request, 404, 500) and a database
that cannot take the write (its disk full: 503, nothing written)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import Http404, JsonResponse
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from memory.errors import DiskFull, DomainError, TooLarge, disk_full


def error_body(code: str, message: str, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


def _flatten(detail: Any) -> Any:
    if isinstance(detail, dict):
        return {key: _flatten(value) for key, value in detail.items()}
    if isinstance(detail, list):
        flat = [_flatten(item) for item in detail]
        return flat[0] if len(flat) == 1 and isinstance(flat[0], str) else flat
    return str(detail)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, RequestDataTooBig):
        exc = TooLarge()
    if disk_full(exc):
        exc = DiskFull()
    if isinstance(exc, DomainError):
        set_rollback()
        retry = {"Retry-After": "60"} if isinstance(exc, DiskFull) else None
        return Response(error_body(exc.code, exc.message, exc.fields), status=exc.status,
                        headers=retry)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        if not isinstance(fields, dict):
            fields = {"non_field_errors": fields}
        response.data = error_body("invalid", "The request is invalid.", fields)
    elif isinstance(exc, exceptions.APIException):
        code = exc.get_codes()
        response.data = error_body(
            code if isinstance(code, str) else exc.default_code, str(exc.detail)
        )
    return response


def json_error(status_code: int, code: str, message: str) -> JsonResponse:
    return JsonResponse(error_body(code, message), status=status_code)


def handler404(request: Any, exception: Exception | None = None) -> JsonResponse:
    return json_error(404, "not_found", "Not found.")


def handler500(request: Any) -> JsonResponse:
    return json_error(500, "server_error", "Internal error; nothing was written.")
