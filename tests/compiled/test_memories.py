"""The memories that mention an entity: in its document strongest first, and a new one is a
change that writes a version."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memory.models import CompiledTruth, Entity, Memory, MemoryMention, Namespace
from memory.services.sleep_cycle import sleep_cycle_run
from tests.compiled.conftest import entity, event

pytestmark = pytest.mark.django_db
NOW = datetime(2026, 3, 1, 3, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def _memory(target: Entity, *, text: str, base: float, at: datetime) -> Memory:
    namespace = Namespace.objects.get(path="world:topic")
    stored = event(at=at, text=text, type="memory")
    memory = Memory.objects.create(
        event=stored, source="api:lyra", source_id=stored.source_id, text=text, occurred_at=at,
        namespace=namespace, memory_type="episodic", referent="abstract", base=base,
        half_life_days=30.0, last_reinforced_at=at)
    MemoryMention.objects.create(memory=memory, entity=target, role="project")
    return memory


def test_memories_strongest_first_and_a_new_one_writes_a_version(
    synced: None, compiled_dir: Path
) -> None:
    target = entity(at=NOW, base=0.8, half_life_days=30.0, name="Cortex")
    _memory(target, text="weak but recent", base=0.3, at=NOW)
    _memory(target, text="strong and older", base=0.9, at=NOW - DAY)
    sleep_cycle_run(now=NOW)
    text = CompiledTruth.objects.get(entity=target).markdown
    assert text.index("`strong and older`") < text.index("`weak but recent`")
    assert "2 memories mention it" in text

    sleep_cycle_run(now=NOW + DAY / 2)
    assert CompiledTruth.objects.filter(entity=target).count() == 1
    _memory(target, text="a third", base=0.5, at=NOW + DAY)
    sleep_cycle_run(now=NOW + DAY)
    latest = CompiledTruth.objects.get(entity=target, superseded_by=None)
    assert (latest.version, latest.reasons, latest.memories_count) == (2, ["memories"], 3)
