"""POST events to Cortex with the standard library, a short timeout, and no proxy for localhost."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

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
        return json.dumps(value, ensure_ascii=False).encode("utf-8", "replace")


def post_json(url: str, body: Any, *, token: str, timeout: float) -> Reply:
    data = dumps(body)
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
