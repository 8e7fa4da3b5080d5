from __future__ import annotations

import itertools
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.test import override_settings

from memory.config import config_path
from memory.models import (
    Entity,
    EntityMention,
    Fact,
    MemoryEvent,
    Observation,
)
from memory.services.taxonomy import taxonomy_sync
from tests.decay import factories

_n = itertools.count(1)


def raw_config() -> dict[str, Any]:
    """config/decay.yaml as written, read here independently of memory.config."""
    raw: dict[str, Any] = yaml.safe_load(config_path().read_text())
    return raw


@pytest.fixture
def compiled_dir(tmp_path: Path) -> Any:
    root = tmp_path / "compiled"
    with override_settings(CORTEX_COMPILED_DIR=root):
        yield root


@pytest.fixture
def synced(db: None) -> None:
    taxonomy_sync()


def entity(*, at: datetime, name: str = "", path: str = "world:project", **fields: Any) -> Entity:
    return factories.entity(now=at, path=path, display_name=name or f"thing {next(_n)}",
                            **fields)


def event(*, at: datetime, text: str = "", type: str = "message") -> MemoryEvent:
    return MemoryEvent.objects.create(source="test", source_id=f"s{next(_n)}", occurred_at=at,
                                      type=type, subtype="user", payload={"text": text})


def mention(target: Entity, *, at: datetime, topic: str = "a topic",
            category: str = "instruction", events: int = 1) -> Observation:
    ids = [event(at=at, text=topic).pk for _ in range(events)]
    observation = Observation.objects.create(
        dedup_key=f"k{next(_n)}", source="test", timestamp=at, category=category, topic=topic,
        target_namespace=target.namespace.path, event_ids=ids, status="retained")
    EntityMention.objects.create(entity=target, observation=observation, role="subject", at=at)
    return observation


def fact(target: Entity, *, claim: str, at: datetime, polarity: int = 1,
         status: str = "active") -> Fact:
    return Fact.objects.create(entity=target, claim=claim, lemma_key=claim.lower(),
                               lemmas=claim.lower().split(), polarity=polarity, status=status,
                               first_seen_at=at, last_seen_at=at,
                               event_ids=[event(at=at, text=claim).pk])
