"""List filters shared by the graph's admin pages."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from memory.models import Namespace
from memory.selectors.taxonomy import namespace_subtree


class NamespaceTreeFilter(admin.SimpleListFilter):
    """Entities of a namespace and of everything under it."""

    title = "namespace (with its subtree)"
    parameter_name = "namespace"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        nodes = Namespace.objects.order_by("tree_id", "lft").only("pk", "name", "level")
        return [(str(n.pk), f"{'· ' * n.level}{n.name}") for n in nodes]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if not value or not value.isdigit():
            return queryset
        node = Namespace.objects.filter(pk=int(value)).first()
        if node is None:
            return queryset.none()
        return queryset.filter(namespace__in=namespace_subtree(namespace=node))
