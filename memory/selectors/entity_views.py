"""Entities as the API and the console show them: a filtered page in key order, and one
entity whole (strength now, counts, relations, current compiled truth). Reading is not a
recall: nothing here reinforces."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet

from memory import clock
from memory.config import DecayConfig, config_get
from memory.errors import NotFound
from memory.models import (
    CompiledTruth,
    Entity,
    EntityMention,
    EntityStatus,
    Fact,
    MemoryMention,
    Relation,
)
from memory.selectors.entities import STRENGTH_NOW, entity_with_strength
from memory.selectors.recall import RecallFilters, project_entity_ids
from memory.selectors.relations import VISIBLE_NOW, WEIGHT_NOW, relation_with_weight


def _strength(value: float | None, pinned: bool) -> float | None:
    if pinned or value is None or math.isinf(value):
        return None
    return round(value, 6)


def entity_summary(entity: Entity) -> dict[str, Any]:
    pinned = entity.pinned
    return {"key": entity.key, "name": entity.display_name, "memory_type": entity.memory_type,
            "referent": entity.referent, "pinned": pinned,
            "strength": _strength(getattr(entity, STRENGTH_NOW, None), pinned),
            "route": entity.route, "status": entity.status}


@dataclass
class EntityPage:
    entities: list[dict[str, Any]] = field(default_factory=list)
    next_cursor: str | None = None


def _filtered(filters: RecallFilters, status: str) -> QuerySet[Entity]:
    queryset = Entity.objects.all() if status == "all" else Entity.objects.filter(status=status)
    if filters.namespace:
        queryset = queryset.filter(Q(namespace__path=filters.namespace)
                                   | Q(namespace__path__startswith=f"{filters.namespace}:"))
    if filters.memory_type:
        queryset = queryset.filter(memory_type=filters.memory_type)
    if filters.referent:
        queryset = queryset.filter(referent=filters.referent)
    if filters.project:
        queryset = queryset.filter(id__in=project_entity_ids(project=filters.project))
    return queryset


def entity_page(*, filters: RecallFilters, cursor: str | None, limit: int,
                status: str = EntityStatus.ACTIVE, now: datetime | None = None,
                config: DecayConfig | None = None) -> EntityPage:
    """Entities in key order after `cursor` (the last key of the previous page)."""
    queryset = _filtered(filters, status)
    if cursor:
        queryset = queryset.filter(key__gt=cursor)
    rows = list(entity_with_strength(now=now or clock.now(), config=config or config_get(),
                                     queryset=queryset.order_by("key")[:limit + 1]))
    page = EntityPage(entities=[entity_summary(e) for e in rows[:limit]])
    if len(rows) > limit:
        page.next_cursor = rows[limit - 1].key
    return page


def entity_detail(*, key: str, now: datetime | None = None,
                  config: DecayConfig | None = None, relations: int = 50) -> dict[str, Any]:
    now = now or clock.now()
    config = config or config_get()
    entity = entity_with_strength(now=now, config=config,
                                  queryset=Entity.objects.filter(key=key)).first()
    if entity is None:
        raise NotFound(f"No entity with key {key!r}.", fields={"key": "No such entity."})
    edges = relation_with_weight(now=now, config=config, queryset=Relation.objects.filter(
        Q(source=entity) | Q(target=entity))).select_related("source", "target")
    compiled = CompiledTruth.objects.filter(entity=entity, superseded_by__isnull=True).first()
    return {
        **entity_summary(entity),
        "namespace": entity.key.rsplit(":", 1)[0], "aliases": entity.aliases,
        "retrieval_count": entity.retrieval_count, "pos": entity.pos, "neg": entity.neg,
        "last_reinforced_at": entity.last_reinforced_at, "created_at": entity.created_at,
        "merged_into": entity.merged_into.key if entity.merged_into_id and entity.merged_into
        else None,
        "counts": {"facts": Fact.objects.filter(entity=entity).count(),
                   "relations": edges.count(),
                   "mentions": EntityMention.objects.filter(entity=entity).count(),
                   "memories": MemoryMention.objects.filter(entity=entity).count()},
        "relations": [
            {"type": r.relation_type, "direction": "out" if r.source_id == entity.pk else "in",
             "other": (r.target if r.source_id == entity.pk else r.source).key,
             "weight": round(getattr(r, WEIGHT_NOW), 6), "visible": getattr(r, VISIBLE_NOW)}
            for r in edges.order_by(f"-{WEIGHT_NOW}", "id")[:relations]],
        "compiled_truth": ({"version": compiled.version, "as_of": compiled.as_of,
                            "markdown": compiled.markdown} if compiled else None),
    }
