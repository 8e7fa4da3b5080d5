"""`/mcp/`: the MCP server over streamable HTTP, inside the WSGI web server (docs/mcp.md).

The SDK's transport is ASGI; Django here is WSGI (gunicorn). The session manager runs in
stateless JSON-response mode (every POST is answered by one JSON body, no session to keep
between gunicorn workers, no SSE stream held open by a sync worker) on an event loop of its
own, in a daemon thread per process, and each request reaches it through a2wsgi. The Django
view authenticates first, so a bad or missing token is a 401 in the API's error shape before
the MCP layer sees the request; each tool call authenticates again and checks its scope.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable
from functools import cache
from io import BytesIO
from typing import Any, cast

import orjson
from a2wsgi import ASGIMiddleware
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from mcp.server.transport_security import TransportSecuritySettings

from memory.errors import DomainError
from memory.mcp.auth import agent_authenticate, header_token
from memory.mcp.results import error_shape
from memory.mcp.server import mcp_server_build

ENDPOINT = "/mcp"
# Django checks the Host header against ALLOWED_HOSTS before the view runs.
NO_REBINDING_CHECK = TransportSecuritySettings(enable_dns_rebinding_protection=False)
JSONRPC_REFUSED = -32001  # JSON-RPC's range for server-defined errors


async def _serve(manager: Any, started: threading.Event) -> None:
    async with manager.run():
        started.set()
        await asyncio.Event().wait()


WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


@cache
def _bridge() -> WSGIApp:
    """Built on first use in each process (after gunicorn forked it)."""
    server = mcp_server_build()
    app = server.streamable_http_app(streamable_http_path=ENDPOINT, stateless_http=True,
                                     json_response=True, transport_security=NO_REBINDING_CHECK)
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, name="mcp-http", daemon=True).start()
    started = threading.Event()
    asyncio.run_coroutine_threadsafe(_serve(server.session_manager, started), loop)
    started.wait()
    wsgi: WSGIApp = cast(WSGIApp, ASGIMiddleware(cast(Any, app), loop=loop))
    return wsgi


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
               "CONTENT_LENGTH": str(len(body)), "PATH_INFO": ENDPOINT, "SCRIPT_NAME": ""}
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
