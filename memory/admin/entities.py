"""Entities with their strength now (evaluated in SQL, not the stored value), their
curve and the date they cross the threshold. Browsing is not a recall."""

from __future__ import annotations

import math
from typing import Any

from django.contrib import admin, messages
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from memory import clock
from memory.admin import entity_page
from memory.admin.base import action_apply
from memory.admin.charts import strength_curve_svg
from memory.admin.console import compiled_diff_view, recall_view
from memory.admin.entity_page import strength_now_text, strength_text
from memory.admin.filters import NamespaceTreeFilter
from memory.admin.paging import EstimatedCountPaginator
from memory.admin.retain import MergeTargetForm
from memory.compiled.text import when
from memory.config import config_get
from memory.decay.curve import entity_timeline
from memory.models import Entity, Relation
from memory.selectors.entities import STRENGTH_NOW, entity_with_strength
from memory.selectors.relations import WEIGHT_NOW, relation_with_weight
from memory.services.decisions import Decider, decider_operator
from memory.services.entities import Outcome, entity_state
from memory.services.feedback import entity_feedback, entity_pin, entity_unpin
from memory.services.merges import entity_merge_decide

_DECAY = ("base_text", "half_life_text", "valence", "pos", "neg", "retrieval_count",
          "last_reinforced_at", "pinned", "route")


def strength_label(value: float | None) -> str:
    if value is None:
        return "-"
    return "pinned (∞)" if math.isinf(value) else f"{value:.4f}"


@admin.register(Entity)
class EntityAdmin(admin.ModelAdmin[Entity]):
    list_display = ("key", "display_name", "strength_now", "pinned", "route", "status",
                    "retrieval_count", "last_reinforced_at")
    list_filter = (NamespaceTreeFilter, "status", "route", "pinned", "valence", "memory_type",
                   "referent")
    search_fields = ("key", "display_name")
    list_select_related = ("namespace",)
    paginator = EstimatedCountPaginator
    show_full_result_count = False
    actions = ("pin", "unpin", "feedback_positive", "feedback_negative", "merge")
    action_form = MergeTargetForm
    fieldsets = (
        (None, {"fields": ("key", "namespace", "display_name", "aliases", "memory_type",
                           "referent", "status", "merged_into")}),
        ("Strength", {"fields": ("strength_now_page", "crosses_threshold_at", "strength_curve",
                                 "strength_consolidated_text")}),
        ("Decay parameters", {"fields": _DECAY}),
        ("Compiled truth", {"fields": ("compiled_truth", "compiled_versions")}),
        ("Facts and memories", {"fields": ("facts", "memories")}),
        ("Relations", {"fields": ("neighbourhood", "relations_now")}),
    )
    readonly_fields = ("key", "namespace", "display_name", "aliases", "memory_type", "referent",
                       "status", "merged_into", "strength_now_page", "crosses_threshold_at",
                       "strength_curve", "strength_consolidated_text", *_DECAY, "relations_now",
                       "compiled_truth", "compiled_versions", "facts", "memories",
                       "neighbourhood")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Entity]:
        return entity_with_strength(now=clock.now(), queryset=super().get_queryset(request))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """An entity is read here, never edited as a form: it changes through the actions
        (pin, feedback, merge), each a decision event."""
        return False

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "",
                    extra_context: dict[str, Any] | None = None) -> HttpResponse:
        entity = self.get_object(request, object_id)
        title = f"Entity: {entity.display_name or entity.key}" if entity else "Entity"
        return super().change_view(request, object_id, form_url,
                                   {**(extra_context or {}), "title": title})

    def get_urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        return [
            path("recall/", wrap(lambda request: recall_view(self, request)),
                 name="memory_entity_recall"),
            path("<path:object_id>/compiled-diff/",
                 wrap(lambda request, object_id: compiled_diff_view(self, request, object_id)),
                 name="memory_entity_compiled_diff"),
            *super().get_urls(),
        ]

    @admin.display(description="current compiled truth")
    def compiled_truth(self, obj: Entity) -> SafeString:
        return entity_page.compiled_truth_html(obj)

    @admin.display(description="versions")
    def compiled_versions(self, obj: Entity) -> SafeString:
        return entity_page.compiled_versions_html(obj)

    @admin.display(description="facts (with their raw events)")
    def facts(self, obj: Entity) -> SafeString:
        return entity_page.facts_html(obj)

    @admin.display(description="memories that mention it (with their raw events)")
    def memories(self, obj: Entity) -> SafeString:
        return entity_page.memories_html(obj)

    @admin.display(description="neighbourhood (weight now)")
    def neighbourhood(self, obj: Entity) -> SafeString:
        return entity_page.neighbourhood_html(obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="strength now", ordering=STRENGTH_NOW)
    def strength_now(self, obj: Entity) -> str:
        return strength_label(getattr(obj, STRENGTH_NOW, None))

    @admin.display(description="strength now")
    def strength_now_page(self, obj: Entity) -> str:
        return strength_now_text(obj)

    @admin.display(description="strength at the last sleep cycle")
    def strength_consolidated_text(self, obj: Entity) -> str:
        if obj.strength_consolidated is None:
            return "not consolidated yet"
        value = strength_text(obj.strength_consolidated, pinned=obj.pinned)
        at = obj.strength_evaluated_at
        return f"{value} on {when(at)}" if at else value

    @admin.display(description="base")
    def base_text(self, obj: Entity) -> str:
        return f"{obj.base:.3f}"

    @admin.display(description="half-life")
    def half_life_text(self, obj: Entity) -> str:
        return f"{obj.half_life_days:g} days"

    @admin.display(description="crosses the threshold")
    def crosses_threshold_at(self, obj: Entity) -> str:
        timeline = self._timeline(obj)
        if timeline is None:
            return "never (pinned)"
        if timeline.crosses_at is None:
            return "-"
        when = "crossed" if timeline.crosses_at <= timeline.now else "will cross"
        return (f"{when} {timeline.threshold:g} on {timeline.crosses_at:%Y-%m-%d %H:%M} "
                "if nothing reinforces it")

    @admin.display(description="curve (solid: past, dashed: projected)")
    def strength_curve(self, obj: Entity) -> SafeString:
        timeline = self._timeline(obj)
        if timeline is None:
            return SafeString("pinned: exempt from decay")
        return strength_curve_svg(timeline)

    @admin.display(description="relations (weight now)")
    def relations_now(self, obj: Entity) -> SafeString:
        edges = relation_with_weight(
            now=clock.now(),
            queryset=Relation.objects.filter(Q(source=obj) | Q(target=obj)),
        ).select_related("source", "target").order_by(f"-{WEIGHT_NOW}")[:20]
        rows = ((reverse("admin:memory_relation_change", args=[r.pk]), r.source.key,
                 r.relation_type, r.target.key, f"{getattr(r, WEIGHT_NOW):.3f}",
                 "" if r.visible_now else " (faded)") for r in edges)  # type: ignore[attr-defined]
        html = format_html_join("", '<li><a href="{}">{} —{}→ {}</a> {}{}</li>', rows)
        return format_html("<ul>{}</ul>", html) if html else SafeString("none")

    def _timeline(self, obj: Entity) -> Any:
        return entity_timeline(entity_state(obj), last_reinforced_at=obj.last_reinforced_at,
                               now=clock.now(), config=config_get())

    @admin.action(description="Pin (exempt from decay)")
    def pin(self, request: HttpRequest, queryset: QuerySet[Entity]) -> None:
        by = _operator(request)
        action_apply(self, request, queryset, lambda e: entity_pin(key=e.key, by=by), "Pinned")

    @admin.action(description="Unpin (decay again from the last reinforcement)")
    def unpin(self, request: HttpRequest, queryset: QuerySet[Entity]) -> None:
        by = _operator(request)
        action_apply(self, request, queryset, lambda e: entity_unpin(key=e.key, by=by),
                     "Unpinned")

    def _feedback(self, request: HttpRequest, queryset: QuerySet[Entity], outcome: str) -> None:
        by = _operator(request)
        action_apply(self, request, queryset,
                     lambda e: entity_feedback(key=e.key, outcome=outcome, by=by),
                     f"Feedback recorded ({outcome})")

    @admin.action(description="Feedback: a good outcome (pos + 1)")
    def feedback_positive(self, request: HttpRequest, queryset: QuerySet[Entity]) -> None:
        self._feedback(request, queryset, Outcome.POSITIVE)

    @admin.action(description="Feedback: a bad outcome (neg + 1)")
    def feedback_negative(self, request: HttpRequest, queryset: QuerySet[Entity]) -> None:
        self._feedback(request, queryset, Outcome.NEGATIVE)

    @admin.action(description="Merge into the entity named below")
    def merge(self, request: HttpRequest, queryset: QuerySet[Entity]) -> None:
        into = request.POST.get("into_key", "").strip()
        if not into:
            self.message_user(request, "Name the entity to merge into (its key).",
                              messages.ERROR)
            return
        by = _operator(request)
        action_apply(self, request, queryset, lambda e: entity_merge_decide(
            merged_key=e.key, survivor_key=into, by=by), f"Merged into {into}")


def _operator(request: HttpRequest) -> Decider:
    return decider_operator(str(getattr(request.user, "username", "")))
