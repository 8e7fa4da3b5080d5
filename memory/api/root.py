"""`GET /api/`: what the API offers, read from the URLconf itself (a new endpoint is listed
without anyone remembering to), with the docs, the schema and the console beside it."""

from __future__ import annotations

import re
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RegexPattern
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

API_PREFIX = "api/"
HTTP_METHODS = ("get", "post", "put", "patch", "delete")
# Routes under /api/ that describe the API rather than serve it: given as links instead.
NOT_LISTED = {"api-root", "schema", "docs"}

_ROUTE_CONVERTER = re.compile(r"<(?:\w+:)?(\w+)>")

EndpointSerializer = inline_serializer(
    "ApiEndpoint",
    {"path": serializers.CharField(), "name": serializers.CharField(),
     "methods": serializers.ListField(child=serializers.CharField())},
    many=True,
)
ApiRootSerializer = inline_serializer(
    "ApiRoot",
    {"name": serializers.CharField(), "docs": serializers.CharField(),
     "schema": serializers.CharField(), "console": serializers.CharField(),
     "mcp": serializers.CharField(), "authentication": serializers.CharField(),
     "endpoints": EndpointSerializer},
)


class ApiRootView(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes: list[Any] = []

    @extend_schema(responses={200: ApiRootSerializer}, summary="What the API offers")
    def get(self, request: Request) -> Response:
        return Response({
            "name": "Cortex API",
            "docs": "/api/docs/",
            "schema": "/api/schema/",
            "console": "/admin/",
            "mcp": "/mcp/",
            "authentication": "Authorization: Token <key> (cortex agent create NAME "
                              "--scopes ...); every endpoint's scope is in the docs",
            "endpoints": api_endpoints(),
        })


def api_endpoints() -> list[dict[str, Any]]:
    """Every route of the URLconf under /api/, in the URLconf's order: its path (parameters
    as <name>), its name and the HTTP methods its view answers."""
    found: list[dict[str, Any]] = []
    _walk(get_resolver().url_patterns, prefix="/", found=found)
    return [e for e in found if e["path"].startswith("/" + API_PREFIX)
            and e["name"] not in NOT_LISTED]


def _walk(patterns: list[Any], *, prefix: str, found: list[dict[str, Any]]) -> None:
    for entry in patterns:
        here = prefix + _readable(entry.pattern)
        if isinstance(entry, URLResolver):
            _walk(entry.url_patterns, prefix=here, found=found)
        elif isinstance(entry, URLPattern):
            found.append({"path": here, "name": entry.name or "",
                          "methods": _methods(entry.callback)})


def _readable(pattern: Any) -> str:
    """A route's text with each parameter as <name>: `entities/<key>/pin/`."""
    text = str(pattern)
    if isinstance(pattern, RegexPattern):
        return _regex_readable(text)
    return _ROUTE_CONVERTER.sub(r"<\1>", text)


def _regex_readable(text: str) -> str:
    text = text.removeprefix("^").removesuffix("$")
    out: list[str] = []
    i = 0
    while i < len(text):
        if text.startswith("(?P<", i):
            name_end = text.index(">", i)
            out.append(f"<{text[i + 4:name_end]}>")
            i = _group_end(text, i) + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out).replace("\\", "")


def _group_end(text: str, start: int) -> int:
    """The index of the parenthesis closing the group opened at `start` (brackets and
    escapes inside it skipped)."""
    depth, i, in_class = 0, start, False
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError(f"unbalanced group in {text!r}")


def _methods(callback: Any) -> list[str]:
    view = getattr(callback, "view_class", None) or getattr(callback, "cls", None)
    if view is None:
        return []
    return [m.upper() for m in HTTP_METHODS if hasattr(view, m)]
