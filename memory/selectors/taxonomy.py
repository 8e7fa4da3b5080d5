"""Reads of the namespace tree."""

from __future__ import annotations

from django.db.models import QuerySet

from memory.models import Entity, Namespace


def namespace_subtree(*, namespace: Namespace) -> QuerySet[Namespace]:
    """The namespace and everything under it."""
    subtree: QuerySet[Namespace] = namespace.get_descendants(include_self=True)
    return subtree


def entity_in_subtree(*, namespace: Namespace) -> QuerySet[Entity]:
    return Entity.objects.filter(
        namespace__tree_id=namespace.tree_id,
        namespace__lft__gte=namespace.lft, namespace__rght__lte=namespace.rght,
    )


def namespace_regex(pattern: str) -> str:
    """The PostgreSQL regular expression of the namespace paths a `*` pattern such as
    `agent:*:rc` names."""
    return "^" + ":".join("[^:]+" if p == "*" else _escape(p) for p in pattern.split(":")) + "$"


def namespaces_like(pattern: str) -> list[int]:
    """Ids of the namespaces a `*` pattern names."""
    rows = Namespace.objects.filter(path__regex=namespace_regex(pattern))
    return list(rows.values_list("id", flat=True))


def _escape(part: str) -> str:
    return "".join(f"\\{c}" if not c.isalnum() else c for c in part)
