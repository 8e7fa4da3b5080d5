"""Tool results: the REST body as JSON text (and as structured content), or the API's error
shape `{"error": {"code", "message", "fields"}}` in an is_error result."""

from __future__ import annotations

from typing import Any

import orjson
from mcp_types import CallToolResult, TextContent
from pydantic import ValidationError

from memory.errors import DomainError, Invalid
from memory.mcp.shape import error_shape, error_text


def error_result(error: DomainError) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=error_text(error))],
                          structured_content=error_shape(error), is_error=True)


def ok_result(body: dict[str, Any]) -> CallToolResult:
    text = orjson.dumps(body, default=str)
    return CallToolResult(content=[TextContent(type="text", text=text.decode())],
                          structured_content=orjson.loads(text))


def invalid_arguments(error: ValidationError) -> Invalid:
    """Pydantic's refusal of the arguments, by argument name (never the offending value)."""
    fields: dict[str, Any] = {}
    for problem in error.errors(include_input=False, include_url=False):
        name = ".".join(str(part) for part in problem["loc"]) or "non_field_errors"
        fields.setdefault(name, problem["msg"])
    return Invalid(fields=fields)
