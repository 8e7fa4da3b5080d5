"""Free-text memories (read-only): each links to the raw event it came from."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from memory.admin.base import ReadOnlyAdmin
from memory.admin.paging import EstimatedCountPaginator
from memory.models import Memory

EXCERPT = 120


@admin.register(Memory)
class MemoryAdmin(ReadOnlyAdmin):
    list_display = ("id", "occurred_at", "excerpt", "source", "actor", "project", "pinned",
                    "retrieval_count", "embedded", "raw_event")
    list_filter = ("embedded", "pinned", "memory_type", "referent")
    search_fields = ("=id", "=source_id", "=project")
    search_help_text = "Exact id, source_id or project (recall searches the text)."
    ordering = ("-id",)
    paginator = EstimatedCountPaginator
    show_full_result_count = False
    list_per_page = 50
    fields = ("text", "raw_event", "source", "source_id", "actor", "project", "occurred_at",
              "language", "namespace", "memory_type", "referent", "base", "half_life_days",
              "valence", "pinned", "retrieval_count", "last_reinforced_at", "embedded",
              "observation", "metadata", "created_at")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Memory]:
        return super().get_queryset(request).defer("search")

    @admin.display(description="text")
    def excerpt(self, memory: Memory) -> str:
        text = memory.text
        return text if len(text) <= EXCERPT else text[:EXCERPT] + "…"

    @admin.display(description="raw event")
    def raw_event(self, memory: Memory) -> SafeString:
        url = reverse("admin:memory_memoryevent_change", args=[memory.event_id])
        return format_html('<a href="{}"><code>{}</code></a>', url, memory.event_id)
