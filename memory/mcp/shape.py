"""The API's error shape `{"error": {"code", "message", "fields"}}` of a DomainError."""

from __future__ import annotations

from typing import Any

import orjson

from memory.errors import DomainError


def error_shape(error: DomainError) -> dict[str, Any]:
    return {"error": {"code": error.code, "message": error.message, "fields": error.fields}}


def error_text(error: DomainError) -> str:
    return orjson.dumps(error_shape(error)).decode()
