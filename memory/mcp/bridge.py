"""The SDK's streamable-HTTP app as a WSGI app, for the `/mcp/` view (memory/mcp/http.py).

The session manager runs in stateless JSON-response mode (every POST is answered by one
JSON body, no session to keep between gunicorn workers, no SSE stream held open by a sync
worker) on an event loop of its own, in a daemon thread per process; each request reaches
it through a2wsgi, on the path the SDK's app serves."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable
from typing import Any, cast

from a2wsgi import ASGIMiddleware
from mcp.server.transport_security import TransportSecuritySettings

from memory.mcp.server import mcp_server_build

ENDPOINT = "/mcp"
# Django checks the Host header against ALLOWED_HOSTS before the view runs.
NO_REBINDING_CHECK = TransportSecuritySettings(enable_dns_rebinding_protection=False)

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


async def _serve(manager: Any, started: threading.Event) -> None:
    async with manager.run():
        started.set()
        await asyncio.Event().wait()


def bridge_build() -> WSGIApp:
    server = mcp_server_build()
    app = server.streamable_http_app(streamable_http_path=ENDPOINT, stateless_http=True,
                                     json_response=True, transport_security=NO_REBINDING_CHECK)
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, name="mcp-http", daemon=True).start()
    started = threading.Event()
    asyncio.run_coroutine_threadsafe(_serve(server.session_manager, started), loop)
    started.wait()
    asgi = cast(WSGIApp, ASGIMiddleware(cast(Any, app), loop=loop))

    def wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        return asgi({**environ, "PATH_INFO": ENDPOINT, "SCRIPT_NAME": ""}, start_response)

    return wsgi
