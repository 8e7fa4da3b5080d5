"""POST JSON to Cortex with a short timeout: a plain socket for Cortex on this machine, the
standard library's urllib otherwise (proxies honoured; it is imported only then).

A hook starts a new interpreter on every call: urllib.request and http.client import the
email package, ssl and more, tens of milliseconds of a budget of a few hundred
(bench/hook_latency.py). To localhost the request is one HTTP/1.0 exchange, read to the end.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from typing import Any, NamedTuple
from urllib.parse import SplitResult, urlsplit

_LOCAL = {"127.0.0.1", "localhost", "::1"}


class Reply(NamedTuple):
    status: int  # 0: Cortex could not be reached (down, timeout, refused)
    body: Any = None


def dumps(value: Any) -> bytes:
    """orjson (the spool's batches), or the standard library for what orjson refuses (huge
    ints, lone surrogates)."""
    import orjson  # lazy: a hook's context request is sent before it is imported

    try:
        return orjson.dumps(value)
    except TypeError:
        return dumps_light(value)


def dumps_light(value: Any) -> bytes:
    """The standard library's JSON, for a small body sent first thing: importing orjson
    (it imports uuid, dataclasses, json...) costs ~10 ms of a hook's start."""
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "replace")


def post_json(url: str, body: Any, *, token: str, timeout: float) -> Reply:
    return post_start(url, dumps(body), token=token, timeout=timeout).reply()


class Pending:
    """A request on its way: to a local Cortex it is sent already (Cortex works on it while
    the hook does the rest of its work), its answer read by `reply()` before the deadline."""

    def __init__(self, answer: Callable[[], Reply]) -> None:
        self._answer = answer

    def reply(self) -> Reply:
        return self._answer()


def post_start(url: str, data: bytes, *, token: str, timeout: float) -> Pending:
    """POST `data` (JSON) now when Cortex is local (otherwise on `reply()`); the answer must
    come within `timeout` seconds of this call."""
    parts = urlsplit(url)
    if parts.scheme == "http" and parts.hostname in _LOCAL:
        return _start_local(parts, data, token=token, timeout=timeout)
    deadline = time.monotonic() + timeout
    return Pending(lambda: _post_urllib(url, data, token=token,
                                        timeout=max(0.01, deadline - time.monotonic())))


def _start_local(parts: SplitResult, data: bytes, *, token: str, timeout: float) -> Pending:
    """One request on a socket of its own, sent now, answered before `timeout` seconds or
    not at all."""
    if any(c in token for c in "\r\n"):
        return Pending(lambda: Reply(0))
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    head = (f"POST {path} HTTP/1.0\r\nHost: {parts.netloc}\r\n"
            f"Content-Type: application/json\r\nAuthorization: Token {token}\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n").encode("latin-1")
    deadline = time.monotonic() + timeout
    try:
        sock = socket.create_connection((parts.hostname or "", parts.port or 80),
                                        timeout=timeout)
    except (OSError, ValueError):  # refused, timeout, bad port
        return Pending(lambda: Reply(0))
    try:
        sock.sendall(head + data)
    except OSError:
        sock.close()
        return Pending(lambda: Reply(0))
    return Pending(lambda: _read_local(sock, deadline))


def _read_local(sock: socket.socket, deadline: float) -> Reply:
    chunks: list[bytes] = []
    with sock:
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return Reply(0)
                sock.settimeout(left)
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError:  # reset, timeout
            return Reply(0)
    return _parsed(b"".join(chunks))


def _parsed(raw: bytes) -> Reply:
    header, found, content = raw.partition(b"\r\n\r\n")
    status_line = header.split(b"\r\n", 1)[0].split()
    if not found or len(status_line) < 2 or not status_line[1].isdigit():
        return Reply(0)
    return Reply(int(status_line[1]), _json(content))


def _post_urllib(url: str, data: bytes, *, token: str, timeout: float) -> Reply:
    import http.client
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, data=data, method="POST", headers={
        "Content-Type": "application/json", "Authorization": f"Token {token}",
    })
    handlers = [urllib.request.ProxyHandler({})] if urlsplit(url).hostname in _LOCAL else []
    opener = urllib.request.build_opener(*handlers)
    try:
        with opener.open(request, timeout=timeout) as response:
            return Reply(response.status, _json(response.read()))
    except urllib.error.HTTPError as error:
        return Reply(error.code, _json(error.read()))
    except (OSError, http.client.HTTPException, ValueError):  # URLError, timeouts included
        return Reply(0)


def _json(data: bytes) -> Any:
    import orjson  # imported by then (the spool's flush); not before the request is sent

    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
