"""The raw log in the admin: read-only, and no full COUNT(*) over a table that only grows."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.core.paginator import Paginator
from django.db import connection
from django.utils.functional import cached_property
from django.utils.html import format_html

from memory.admin.base import ReadOnlyAdmin
from memory.models.events import MemoryEvent

_COUNT_CAP = 10_000


class CappedCountPaginator(Paginator[Any]):
    """Counts at most _COUNT_CAP rows; beyond that, PostgreSQL's estimate for the table."""

    @cached_property
    def count(self) -> int:
        capped: int = self.object_list[: _COUNT_CAP + 1].count()  # type: ignore[attr-defined]
        if capped <= _COUNT_CAP:
            return capped
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT reltuples::bigint FROM pg_class WHERE relname = %s",
                [MemoryEvent._meta.db_table],
            )
            row = cursor.fetchone()
        return max(capped, int(row[0]) if row else 0)


@admin.register(MemoryEvent)
class MemoryEventAdmin(ReadOnlyAdmin):
    list_display = (
        "id", "occurred_at", "source", "type", "subtype", "actor", "project", "redaction_count"
    )
    search_fields = ("=id", "=source_id", "=correlation_session")
    search_help_text = (
        "Exact id, source_id or session. Filter with the URL: ?source=…&type=…&project=…"
    )
    ordering = ("-txid", "-id")
    paginator = CappedCountPaginator
    show_full_result_count = False
    list_per_page = 50
    readonly_fields = (
        "id", "source", "source_id", "occurred_at", "recorded_at", "type", "subtype", "actor",
        "project", "correlation_session", "correlation_thread", "correlation_parent",
        "redaction_count", "txid", "payload_pretty",
    )
    exclude = ("payload",)

    @admin.display(description="payload")
    def payload_pretty(self, event: MemoryEvent) -> str:
        text = json.dumps(event.payload, indent=2, ensure_ascii=False, sort_keys=True)
        return format_html('<pre style="white-space: pre-wrap">{}</pre>', text)
