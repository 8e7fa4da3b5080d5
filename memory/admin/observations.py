"""Observations in the admin: filter by category, status and namespace; read the evidence."""

from __future__ import annotations

import json
import re
from typing import Any

from django.contrib import admin
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from memory.admin.base import ReadOnlyAdmin
from memory.admin.paging import EstimatedCountPaginator
from memory.compiled.text import when
from memory.models import Namespace
from memory.models.observations import Observation
from memory.observation_schemas import observation_categories
from memory.selectors.observations import observation_evidence

EXCERPT = 160


class CategoryFilter(admin.SimpleListFilter):
    """The registered categories (not a DISTINCT over a table that only grows)."""

    title = "category"
    parameter_name = "category"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(name, name) for name in observation_categories()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(category=self.value()) if self.value() else queryset


class TargetNamespaceFilter(admin.SimpleListFilter):
    """Observations aimed at a namespace of the taxonomy or anything under it."""

    title = "target namespace (with its subtree)"
    parameter_name = "target"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        nodes = Namespace.objects.order_by("tree_id", "lft").only("path", "name", "level")
        return [(n.path, f"{'· ' * n.level}{n.name}") for n in nodes]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        path = self.value()
        if not path:
            return queryset
        # Tree nodes may hold `*` segments (agent:*:rc): match them as "any one segment".
        regex = "^" + ":".join("[^:]+" if s == "*" else re.escape(s) for s in path.split(":"))
        return queryset.filter(Q(target_namespace__regex=regex + "$") |
                               Q(target_namespace__regex=regex + ":"))


def _excerpt(payload: Any) -> str:
    text = json.dumps(payload, ensure_ascii=False)
    return text if len(text) <= EXCERPT else text[:EXCERPT] + "…"


@admin.register(Observation)
class ObservationAdmin(ReadOnlyAdmin):
    list_display = ("id", "timestamp", "category", "status", "target_namespace", "topic",
                    "sentiment", "source")
    list_filter = (CategoryFilter, "status", TargetNamespaceFilter, "sentiment")
    search_fields = ("=id", "topic", "=correlation_session")
    search_help_text = "Exact id or session, or words of the topic."
    ordering = ("-id",)
    paginator = EstimatedCountPaginator
    show_full_result_count = False
    list_per_page = 50
    readonly_fields = (
        "id", "source", "category", "timestamp", "recorded_at", "target_namespace", "topic",
        "sentiment", "sentiment_score", "status", "schema_fit", "attempts", "error",
        "retained_at", "correlation_session", "correlation_thread", "correlation_parent",
        "actors_pretty", "payload_pretty", "evidence", "dedup_key",
    )
    exclude = ("actors", "payload_typed", "event_ids")

    @admin.display(description="actors")
    def actors_pretty(self, observation: Observation) -> str:
        return _pretty(observation.actors)

    @admin.display(description="payload_typed")
    def payload_pretty(self, observation: Observation) -> str:
        return _pretty(observation.payload_typed)

    @admin.display(description="evidence (the events it was derived from)")
    def evidence(self, observation: Observation) -> str:
        events = observation_evidence(observation=observation)
        if not events:
            return "—"
        rows = format_html_join(
            "", '<tr><td><a href="{}">{}</a></td><td>{}</td><td>{}</td><td>{}</td>'
            "<td><code>{}</code></td></tr>",
            ((reverse("admin:memory_memoryevent_change", args=[e.id]), e.id, when(e.occurred_at),
              e.subtype, e.actor, _excerpt(e.payload)) for e in events),
        )
        return format_html("<table><tr><th>event</th><th>occurred</th><th>subtype</th>"
                           "<th>actor</th><th>payload</th></tr>{}</table>", rows)


def _pretty(value: Any) -> str:
    text = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
    return format_html('<pre style="white-space: pre-wrap">{}</pre>', text)
