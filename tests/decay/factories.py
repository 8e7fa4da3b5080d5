"""Small builders for decay tests: a synced taxonomy, entities and relations."""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any

from memory.config import DecayConfig
from memory.models import Entity, Namespace, Relation
from memory.services.entities import entity_create
from memory.services.taxonomy import namespace_resolve, taxonomy_sync

_slugs = itertools.count(1)


def synced(config: DecayConfig | None = None) -> None:
    taxonomy_sync(config=config)


def namespace(path: str = "world:project") -> Namespace:
    return namespace_resolve(path=path)


def entity(*, now: datetime, path: str = "world:project", **fields: Any) -> Entity:
    return entity_create(namespace=namespace(path), slug=f"e{next(_slugs)}", now=now, **fields)


def relation(source: Entity, target: Entity, *, relation_type: str = "relates_to",
             relation_class: str = "normal", at: datetime) -> Relation:
    return Relation.objects.create(
        source=source, target=target, relation_type=relation_type,
        relation_class=relation_class, last_reinforced_at=at, created_at=at,
    )
