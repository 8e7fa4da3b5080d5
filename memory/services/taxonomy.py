"""The namespace tree: synced from the config, extended on demand for new agents."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from datetime import datetime

from django.db import connection, transaction

from memory import clock
from memory.config import SEGMENT, WILDCARD, DecayConfig, TaxonomyNode, config_get
from memory.errors import Invalid
from memory.models import Namespace
from memory.services.entities import entity_half_life_follow
from memory.services.relations import relation_reclassify

# pg_advisory_xact_lock key serializing writes to the tree (django-mptt renumbers it).
TREE_LOCK_KEY = 0x636F7274_0001

_NODE_FIELDS = (
    "pattern", "memory_type", "referent", "half_life_days", "base_strength", "valence",
    "pinned", "description",
)


class NamespaceUnknown(Invalid, ValueError):
    """The taxonomy in the config describes no such namespace."""


@dataclasses.dataclass
class SyncReport:
    created: list[str] = dataclasses.field(default_factory=list)
    updated: list[str] = dataclasses.field(default_factory=list)
    retired: list[str] = dataclasses.field(default_factory=list)
    entities_rescheduled: int = 0
    relations_reclassified: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated or self.retired
                    or self.entities_rescheduled or self.relations_reclassified)


def _lock_tree() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [TREE_LOCK_KEY])


def _node_values(node: TaxonomyNode) -> dict[str, object]:
    return {name: getattr(node, name) for name in _NODE_FIELDS}


def _node_or_fail(path: str, config: DecayConfig) -> TaxonomyNode:
    for segment in path.split(":"):
        if not SEGMENT.match(segment):
            raise NamespaceUnknown(f"{path!r}: segment {segment!r} is not a valid name")
    node = config.taxonomy.node_for(path)
    if node is None:
        raise NamespaceUnknown(f"{path!r} is not in the taxonomy (config/decay.yaml)")
    return node


def _create(path: str, node: TaxonomyNode, parent: Namespace | None) -> Namespace:
    created: Namespace = Namespace.objects.create(
        path=path, name=path.rsplit(":", 1)[-1], parent=parent, in_config=True,
        **_node_values(node),
    )
    return created


def namespace_resolve(*, path: str, config: DecayConfig | None = None) -> Namespace:
    """The namespace at `path`, created with its ancestors if the taxonomy describes it.

    `agent:lyra:rc` creates `agent:lyra` and `agent:lyra:rc` from `agent:*` and
    `agent:*:rc` the first time any agent named lyra needs them.
    """
    found: Namespace | None = Namespace.objects.filter(path=path).first()
    if found is not None:
        return found
    config = config or config_get()
    _node_or_fail(path, config)
    with transaction.atomic():
        _lock_tree()
        parent: Namespace | None = None
        segments = path.split(":")
        for depth in range(1, len(segments) + 1):
            prefix = ":".join(segments[:depth])
            existing = Namespace.objects.filter(path=prefix).first()
            parent = existing or _create(prefix, _node_or_fail(prefix, config), parent)
    assert parent is not None
    return parent


def _expand(config: DecayConfig, existing: Iterable[str]) -> dict[str, TaxonomyNode]:
    """Every concrete path the config describes: literal nodes, and each `*` node
    instantiated for the configured instances and for every name already in the tree."""
    existing = set(existing)
    concrete: dict[str, list[str]] = {}
    wanted: dict[str, TaxonomyNode] = {}
    for pattern, node in config.taxonomy.resolved.items():
        parent_pattern, _, last = pattern.rpartition(":")
        parents = concrete.get(parent_pattern, []) if parent_pattern else [""]
        paths = []
        for parent in parents:
            if last != WILDCARD:
                paths.append(f"{parent}:{last}" if parent else last)
                continue
            prefix = f"{parent}:"
            names = set(config.taxonomy.instances.get(pattern, ()))
            names |= {p[len(prefix):] for p in existing
                      if p.startswith(prefix) and ":" not in p[len(prefix):]}
            paths += [prefix + name for name in sorted(names)]
        concrete[pattern] = [p for p in paths if config.taxonomy.node_for(p) is node]
        wanted.update((path, node) for path in concrete[pattern])
    return wanted


def taxonomy_sync(*, config: DecayConfig | None = None, now: datetime | None = None) -> SyncReport:
    """Make the tree match the config. Idempotent; never deletes a node.

    A node the config no longer describes is kept with `in_config=False`. When a
    node's half-life changes, its entities still on the old default follow it.
    Relations whose type the config now maps to another class are reclassified.
    """
    config = config or config_get()
    now = now or clock.now()
    report = SyncReport()
    with transaction.atomic():
        _lock_tree()
        current = {ns.path: ns for ns in Namespace.objects.all()}
        wanted = _expand(config, current)
        for path, node in sorted(wanted.items(), key=lambda item: item[0].count(":")):
            namespace = current.get(path)
            if namespace is None:
                parent = current.get(path.rpartition(":")[0]) if ":" in path else None
                current[path] = _create(path, node, parent)
                report.created.append(path)
            elif (previous_half_life := _update(namespace, node)) is not None:
                report.updated.append(path)
                if previous_half_life != namespace.half_life_days:
                    report.entities_rescheduled += entity_half_life_follow(
                        namespace_id=namespace.pk, old=previous_half_life,
                        new=namespace.half_life_days, now=now, config=config,
                    )
        for path, namespace in current.items():
            if path not in wanted and namespace.in_config:
                namespace.in_config = False
                namespace.save(update_fields=["in_config", "updated_at"])
                report.retired.append(path)
        report.relations_reclassified = relation_reclassify(config=config)
    return report


def _update(namespace: Namespace, node: TaxonomyNode) -> float | None:
    """Apply the node's values; the previous half-life if anything changed, else None."""
    values = _node_values(node) | {"in_config": True}
    changed = [name for name, value in values.items() if getattr(namespace, name) != value]
    if not changed:
        return None
    previous = namespace.half_life_days
    for name in changed:
        setattr(namespace, name, values[name])
    namespace.save(update_fields=[*changed, "updated_at"])
    return previous
