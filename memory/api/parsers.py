"""JSON in and out with orjson: the event endpoints parse and render large batches."""

from __future__ import annotations

import json
from typing import Any, NoReturn

import orjson
from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser
from rest_framework.renderers import BaseRenderer

from memory.errors import TooLarge


def _no_constants(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def _content_length(parser_context: dict[str, Any] | None) -> int:
    request = (parser_context or {}).get("request")
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0) if request is not None else 0
    except ValueError:
        return 0


class OrjsonParser(BaseParser):
    media_type = "application/json"

    def parse(
        self, stream: Any, media_type: str | None = None, parser_context: Any = None
    ) -> Any:
        if _content_length(parser_context) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
            raise TooLarge()
        body = stream.read() if stream is not None else b""
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            pass
        # orjson refuses escaped lone surrogates and integers beyond 64 bits, which JSON
        # allows; the standard parser takes them (strings are cleaned before storage).
        try:
            return json.loads(body.decode("utf-8"), parse_constant=_no_constants)
        except RecursionError:
            raise ParseError("Malformed JSON (nested too deeply).") from None
        except (ValueError, UnicodeDecodeError) as error:
            where = ""
            if isinstance(error, json.JSONDecodeError):
                where = f" (line {error.lineno}, column {error.colno})"
            raise ParseError(f"Malformed JSON{where}.") from None


class OrjsonRenderer(BaseRenderer):
    media_type = "application/json"
    format = "json"
    charset = None

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        if data is None:
            return b""
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_UTC_Z)
