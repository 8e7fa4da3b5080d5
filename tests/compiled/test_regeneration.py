"""The regeneration rule in the sleep cycle: a version past the threshold, none below it, one
on any change of facts, relations or memories, the chain, the file, the requests."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memory.models import CompiledTruth, Entity, RegenerationRequest, SleepCycleRun
from memory.services.relations import relation_reinforce
from memory.services.sleep_cycle import sleep_cycle_run
from tests.compiled.conftest import entity, fact, mention, raw_config

pytestmark = pytest.mark.django_db
NOW = datetime(2026, 3, 1, 3, 0, tzinfo=UTC)
DAY = timedelta(days=1)
HALF_LIFE = 30.0
BASE = 0.8


def _versions(target: Entity) -> list[CompiledTruth]:
    return list(CompiledTruth.objects.filter(entity=target).order_by("version"))


def _regeneration_days() -> float:
    """Days until strength 0.8 x 0.5^(t/30) has moved by the configured share."""
    share = raw_config()["thresholds"]["regeneration"]
    return HALF_LIFE * math.log2(1.0 / (1.0 - share))


def _file(root: Path, target: Entity) -> Path:
    return root.joinpath(*target.namespace.path.split(":"), f"{target.slug}.md")


def test_a_version_is_written_past_the_threshold_and_not_below_it(
    synced: None, compiled_dir: Path
) -> None:
    target = entity(at=NOW, base=BASE, half_life_days=HALF_LIFE)
    sleep_cycle_run(now=NOW)
    (first,) = _versions(target)
    assert first.strength == pytest.approx(BASE) and first.reasons == ["first"]

    days = _regeneration_days()  # 4.56 days at 10 %
    sleep_cycle_run(now=NOW + 0.97 * days * DAY)
    assert len(_versions(target)) == 1

    sleep_cycle_run(now=NOW + 1.03 * days * DAY)
    versions = _versions(target)
    assert [v.version for v in versions] == [1, 2]
    expected = BASE * 0.5 ** (1.03 * days / HALF_LIFE)
    assert versions[1].strength == pytest.approx(expected, rel=1e-9)
    assert versions[1].reasons == ["strength"]
    assert f"{expected:.3f}" in versions[1].markdown

    # Measured from the last version (v2), not from the first.
    sleep_cycle_run(now=NOW + 1.03 * days * DAY + 0.97 * days * DAY)
    assert len(_versions(target)) == 2


def test_facts_relations_and_memories_changes_write_a_version_nothing_else_does(
    synced: None, compiled_dir: Path
) -> None:
    target = entity(at=NOW, base=BASE, half_life_days=HALF_LIFE, name="Cortex")
    other = entity(at=NOW, name="pnpm", path="world:artifact")
    sleep_cycle_run(now=NOW)
    assert len(_versions(target)) == 1
    file_before = _file(compiled_dir, target).read_text()

    sleep_cycle_run(now=NOW + DAY)  # strength moved 2.3 %: nothing
    assert len(_versions(target)) == 1
    assert _file(compiled_dir, target).read_text() == file_before

    fact(target, claim="use pnpm", at=NOW + DAY)
    sleep_cycle_run(now=NOW + 1.5 * DAY)
    assert _versions(target)[-1].reasons == ["facts"]

    relation_reinforce(edges=[(target.pk, other.pk, "uses")], now=NOW + 1.5 * DAY)
    sleep_cycle_run(now=NOW + 2 * DAY)
    assert _versions(target)[-1].reasons == ["relations"]
    assert _versions(other)[-1].reasons == ["relations"]  # the other end sees it too
    assert len(_versions(target)) == 3

    sleep_cycle_run(now=NOW + 2.5 * DAY)
    assert len(_versions(target)) == 3


def test_the_chain_is_intact_and_the_file_is_the_current_version(
    synced: None, compiled_dir: Path
) -> None:
    target = entity(at=NOW, base=BASE, half_life_days=HALF_LIFE)
    days = _regeneration_days() * 1.05
    for night in range(4):
        sleep_cycle_run(now=NOW + night * days * DAY)
    versions = _versions(target)
    assert [v.version for v in versions] == [1, 2, 3, 4]
    for previous, following in zip(versions, versions[1:], strict=False):
        assert previous.superseded_by_id == following.pk
    assert versions[-1].superseded_by_id is None
    assert CompiledTruth.objects.filter(entity=target, superseded_by=None).count() == 1
    assert _file(compiled_dir, target).read_text() == versions[-1].markdown
    leftovers = [p for p in compiled_dir.rglob("*") if p.name.startswith(".tmp-")]
    assert leftovers == []


def test_the_retain_jobs_requests_are_consumed(synced: None, compiled_dir: Path) -> None:
    target = entity(at=NOW, base=BASE, half_life_days=HALF_LIFE)
    RegenerationRequest.objects.create(entity=target, reasons=["created"], requested_at=NOW)
    run = sleep_cycle_run(now=NOW)
    assert not RegenerationRequest.objects.filter(consumed_at=None).exists()
    assert run.counts["compiled_requests_consumed"] == 1
    assert _versions(target)[0].reasons == ["first", "requested"]


def test_the_step_is_recorded_with_its_counts_and_durations(
    synced: None, compiled_dir: Path, admin_client: Any
) -> None:
    changed = entity(at=NOW, base=BASE, half_life_days=HALF_LIFE)
    entity(at=NOW, base=BASE, half_life_days=HALF_LIFE)
    mention(changed, at=NOW, topic="set up the repository")
    sleep_cycle_run(now=NOW)
    fact(changed, claim="use pnpm", at=NOW)
    run = sleep_cycle_run(now=NOW + DAY)
    step = next(s for s in run.steps if s["name"] == "compiled_truth")
    assert step["status"] == "succeeded" and step["duration_ms"] >= 0
    counts = step["counts"]
    assert (counts["compiled_evaluated"], counts["compiled_changed"],
            counts["compiled_written"], counts["compiled_files"]) == (2, 1, 1, 1)
    assert counts["compiled_because_facts"] == 1
    assert {"compiled_select_ms", "compiled_render_ms", "compiled_files_ms"} <= set(counts)
    assert run.counts["compiled_written"] == 1

    page = admin_client.get(f"/admin/memory/sleepcyclerun/{run.pk}/change/")
    assert page.status_code == 200 and b"compiled_truth" in page.content
    assert b"compiled_written 1" in page.content
    versions = admin_client.get("/admin/memory/compiledtruth/")
    assert versions.status_code == 200 and changed.key.encode() in versions.content
    version = CompiledTruth.objects.filter(entity=changed).latest("version")
    detail = admin_client.get(f"/admin/memory/compiledtruth/{version.pk}/change/")
    assert detail.status_code == 200 and b"use pnpm" in detail.content
    assert SleepCycleRun.objects.count() == 2
