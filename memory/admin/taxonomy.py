"""The namespace tree: read-only here, it is synced from config/decay.yaml."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from mptt.admin import MPTTModelAdmin

from memory.models import Namespace


@admin.register(Namespace)
class NamespaceAdmin(MPTTModelAdmin):  # type: ignore[misc]  # django-mptt is untyped
    list_display = ("path", "grid_cell", "decay", "pinned", "in_config", "entities")
    list_filter = ("memory_type", "referent", "in_config")
    search_fields = ("path",)
    mptt_level_indent = 20
    readonly_fields = [f.name for f in Namespace._meta.fields if f.name != "id"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="grid cell")
    def grid_cell(self, obj: Namespace) -> str:
        return f"{obj.get_memory_type_display()} x {obj.get_referent_display()}".lower()

    @admin.display(description="decay")
    def decay(self, obj: Namespace) -> str:
        return (f"half-life {obj.half_life_days:g} days, base {obj.base_strength:g}, "
                f"{obj.get_valence_display().lower()}")

    @admin.display(description="entities")
    def entities(self, obj: Namespace) -> str:
        url = reverse("admin:memory_entity_changelist")
        return format_html('<a href="{}?namespace={}">entities in this subtree</a>', url, obj.pk)
