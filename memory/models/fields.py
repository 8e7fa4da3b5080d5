"""Model fields of Cortex's own."""

from __future__ import annotations

from typing import Any

from django import forms
from django.db import models

from memory.event_payload import payload_dumps, payload_loads


class PackedJSONField(models.Field):  # type: ignore[type-arg]
    """A JSON value in a bytea column, packed by memory.event_payload (lz4 when it pays). It
    reads and writes as a JSONField does; it has no key lookups (the database cannot read
    inside it: readers load the value)."""

    description = "JSON, lz4-compressed"

    def db_type(self, connection: Any) -> str:
        return "bytea"

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        return None if value is None else payload_loads(value)

    def get_prep_value(self, value: Any) -> Any:
        return None if value is None else payload_dumps(value)

    def value_to_string(self, obj: Any) -> Any:
        return self.value_from_object(obj)

    def formfield(self, **kwargs: Any) -> Any:
        return super().formfield(**{"form_class": forms.JSONField, **kwargs})
