"""Compiled-truth versions (Layer 3): read-only; they change through the sleep cycle and
`cortex rebuild compiled`."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.safestring import SafeString

from memory.admin.base import ReadOnlyAdmin
from memory.admin.entity_page import strength_text
from memory.admin.paging import EstimatedCountPaginator
from memory.compiled.text import counted
from memory.models import CompiledTruth


@admin.register(CompiledTruth)
class CompiledTruthAdmin(ReadOnlyAdmin):
    list_display = ("entity", "version_label", "as_of", "strength_then", "holds", "trigger",
                    "reasons")
    list_filter = ("trigger", "pinned")
    list_select_related = ("entity",)
    search_fields = ("entity__key",)
    raw_id_fields = ("entity", "superseded_by")
    paginator = EstimatedCountPaginator
    show_full_result_count = False
    fields = ("entity", "version", "current", "as_of", "created_at", "trigger", "reasons",
              "strength_then", "pinned", "facts_count", "facts_digest", "relations_count",
              "relations_digest", "memories_count", "memories_digest", "superseded_by",
              "document")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[CompiledTruth]:
        return super().get_queryset(request).defer("markdown")

    @admin.display(boolean=True, description="current")
    def current(self, obj: CompiledTruth) -> bool:
        return obj.is_current

    @admin.display(description="version", ordering="version")
    def version_label(self, obj: CompiledTruth) -> str:
        return f"{obj.version} (current)" if obj.is_current else str(obj.version)

    @admin.display(description="strength then")
    def strength_then(self, obj: CompiledTruth) -> str:
        return strength_text(obj.strength, pinned=obj.pinned)

    @admin.display(description="holds")
    def holds(self, obj: CompiledTruth) -> str:
        return (f"{counted(obj.facts_count, 'fact', 'facts')}, "
                f"{counted(obj.relations_count, 'relation', 'relations')}, "
                f"{counted(obj.memories_count, 'memory', 'memories')}")

    @admin.display(description="markdown")
    def document(self, obj: CompiledTruth) -> SafeString:
        return format_html('<pre style="white-space: pre-wrap">{}</pre>', obj.markdown)
