"""Relations with their weight now and whether standard search still sees them."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from memory import clock
from memory.admin.paging import EstimatedCountPaginator
from memory.compiled.text import when
from memory.config import config_get
from memory.models import Relation
from memory.selectors.relations import VISIBLE_NOW, WEIGHT_NOW, relation_with_weight


class VisibilityFilter(admin.SimpleListFilter):
    title = "visibility now"
    parameter_name = "visible"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "visible"), ("no", "faded (below the threshold)")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() in ("yes", "no"):
            return queryset.filter(**{VISIBLE_NOW: self.value() == "yes"})
        return queryset


class RelationClassFilter(admin.SimpleListFilter):
    title = "class"
    parameter_name = "relation_class"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(name, f"{name} (sigma {sigma:g} d)")
                for name, sigma in config_get().graph.classes.items()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(relation_class=self.value()) if self.value() else queryset


@admin.register(Relation)
class RelationAdmin(admin.ModelAdmin[Relation]):
    list_display = ("source", "relation_type", "target", "relation_class", "weight_now",
                    "visible", "evidence_count", "last_reinforced_at")
    list_filter = (VisibilityFilter, RelationClassFilter)
    search_fields = ("source__key", "target__key", "relation_type")
    list_select_related = ("source", "target")
    paginator = EstimatedCountPaginator
    show_full_result_count = False
    readonly_fields = ("source", "target", "relation_type", "relation_class",
                       "last_reinforced_at", "evidence_count", "weight_now", "visible",
                       "weight_stored", "created_at")
    fields = readonly_fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Relation]:
        return relation_with_weight(now=clock.now(), queryset=super().get_queryset(request))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="weight now", ordering=WEIGHT_NOW)
    def weight_now(self, obj: Relation) -> str:
        return f"{getattr(obj, WEIGHT_NOW):.4f}"

    @admin.display(description="weight at the last sleep cycle")
    def weight_stored(self, obj: Relation) -> str:
        if obj.weight is None:
            return "not evaluated yet"
        at = obj.weight_evaluated_at
        return f"{obj.weight:.3f} on {when(at)}" if at else f"{obj.weight:.3f}"

    @admin.display(description="visible now", boolean=True, ordering=VISIBLE_NOW)
    def visible(self, obj: Relation) -> bool:
        return bool(getattr(obj, VISIBLE_NOW))
