"""`/mcp/`: the MCP server over streamable HTTP, inside the WSGI web server (docs/mcp.md).

The SDK's transport is ASGI; Django here is WSGI (gunicorn): memory/mcp/bridge.py runs it
in stateless JSON-response mode behind a2wsgi. The view authenticates first, so a bad or
missing token is a 401 in the API's error shape before the MCP layer sees the request; each
tool call authenticates again and checks its scope.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from io import BytesIO
from typing import Any

import orjson
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from memory.errors import DomainError
from memory.mcp.auth import agent_authenticate, header_token
from memory.mcp.shape import error_shape

JSONRPC_REFUSED = -32001  # JSON-RPC's range for server-defined errors
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


@cache
def _bridge() -> WSGIApp:
    """Built on first use in each process (after gunicorn forked it). Imported here, not at
    the top: the SDK takes about a second to import, and the URLconf that imports this module
    is loaded by every command's system checks."""
    from memory.mcp.bridge import bridge_build

    return bridge_build()


class MethodNotAllowed(DomainError):
    status = 405
    default_code = "method_not_allowed"
    default_message = "Only POST: this endpoint is stateless (no SSE stream, no session)."


def _jsonrpc_id(body: bytes) -> Any:
    try:
        message = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if isinstance(message, dict) and message.get("jsonrpc") == "2.0" and "method" in message:
        return message.get("id")
    return None


def _refused(error: DomainError, body: bytes) -> JsonResponse:
    """The API's error shape; for a JSON-RPC request, inside a JSON-RPC error (as `data`),
    so that an MCP client shows the message."""
    shape = error_shape(error)
    call = _jsonrpc_id(body)
    if call is not None:
        shape = {"jsonrpc": "2.0", "id": call,
                 "error": {"code": JSONRPC_REFUSED, "message": error.message, "data": shape}}
    response = JsonResponse(shape, status=error.status)
    if error.status == 401:
        response["WWW-Authenticate"] = "Token"
    return response


@csrf_exempt
def mcp_view(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        # Stateless: no stream to open (GET) and no session to end (DELETE); a GET stream
        # would hold a sync worker until gunicorn's timeout.
        refusal = _refused(MethodNotAllowed(), b"")
        refusal["Allow"] = "POST"
        return refusal
    try:
        agent_authenticate(token=header_token(request.headers.get("Authorization")))
    except DomainError as error:
        return _refused(error, request.body)
    body = request.body
    environ = {**request.META, "wsgi.input": BytesIO(body),
               "CONTENT_LENGTH": str(len(body))}
    answer: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]],
                       exc_info: Any = None) -> Callable[[bytes], None]:
        answer.update(status=int(status.split()[0]), headers=headers)
        return lambda data: None

    content = b"".join(_bridge()(environ, start_response))
    response = HttpResponse(content, status=answer["status"])
    for name, value in answer["headers"]:
        if name.lower() != "content-length":
            response[name] = value
    return response
