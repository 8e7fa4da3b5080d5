"""POST JSON to Cortex with a short timeout: a plain socket for Cortex on this machine, the
standard library's urllib otherwise (proxies honoured; it is imported only then).

A hook starts a new interpreter on every call: urllib.request and http.client import the
email package, ssl and more, tens of milliseconds of a budget of a few hundred
(bench/hook_latency.py). To localhost the request is one HTTP/1.0 exchange, read to the end.
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, urlsplit

import orjson

_LOCAL = {"127.0.0.1", "localhost", "::1"}


@dataclass(frozen=True)
class Reply:
    status: int  # 0: Cortex could not be reached (down, timeout, refused)
    body: Any = None


def dumps(value: Any) -> bytes:
    """orjson, or the standard library for what orjson refuses (huge ints, lone surrogates)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        import json

        return json.dumps(value, ensure_ascii=False).encode("utf-8", "replace")


def post_json(url: str, body: Any, *, token: str, timeout: float) -> Reply:
    data = dumps(body)
    parts = urlsplit(url)
    if parts.scheme == "http" and parts.hostname in _LOCAL:
        return _post_local(parts, data, token=token, timeout=timeout)
    return _post_urllib(url, data, token=token, timeout=timeout)


def _post_local(parts: SplitResult, data: bytes, *, token: str, timeout: float) -> Reply:
    """One request on a socket of its own, answered before `timeout` seconds or not at all."""
    if any(c in token for c in "\r\n"):
        return Reply(0)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    head = (f"POST {path} HTTP/1.0\r\nHost: {parts.netloc}\r\n"
            f"Content-Type: application/json\r\nAuthorization: Token {token}\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n").encode("latin-1")
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    try:
        with socket.create_connection((parts.hostname or "", parts.port or 80),
                                      timeout=timeout) as sock:
            sock.sendall(head + data)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return Reply(0)
                sock.settimeout(left)
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
    except (OSError, ValueError):  # refused, reset, timeout, bad port
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
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
