"""The sleep cycle: exact transitions on a seeded graph, idempotence, no overlap, recovery."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection

from memory.models import (
    Entity,
    EntityStatus,
    EntityTransition,
    Relation,
    RelationTransition,
    RunStatus,
    SleepCycleRun,
)
from memory.services.entities import entity_pin, entity_reinforce
from memory.services.locks import SLEEP_CYCLE_LOCK_KEY, SleepCycleBusy
from memory.services.relations import relation_reinforce
from memory.services.sleep_cycle import ABANDONED, sleep_cycle_run
from memory.services.taxonomy import taxonomy_sync
from memory.sleep.registry import StepContext, sleep_step, sleep_step_remove
from memory.tasks.sleep_cycle import sleep_cycle_run_task
from tests.decay import factories
from tests.decay.conftest import NOW, config_with

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def _entity(name: str, **fields: Any) -> Entity:
    at = fields.pop("at", NOW)
    return factories.entity(now=at, half_life_days=30, display_name=name, **fields)


@pytest.fixture
def graph() -> dict[str, Any]:
    taxonomy_sync()
    e = {
        "fades": _entity("fades"),  # 0.5 -> 0.315 at +20 d
        "revives": _entity("revives"),  # like fades, then recalled at +20 d
        "old": _entity("old", at=NOW - 10 * DAY),  # 0.397 -> 0.25 at +20 d
        "faint": _entity("faint", base=0.3),  # below from the start: never crosses
        "critical": _entity("critical", valence="critical"),  # 1.0 -> 0.63: stays above
        "pinned": _entity("pinned", base=0.1),
        "merged": _entity("merged", status=EntityStatus.MERGED),  # not evaluated
    }
    entity_pin(entity_id=e["pinned"].pk, now=NOW)
    a, b = e["critical"].pk, e["pinned"].pk
    relation_reinforce(edges=[(a, b, "uses"), (a, b, "mentions"), (a, b, "is_core_concept_of")],
                       now=NOW)
    return {**e, **{r.relation_type: r for r in Relation.objects.all()}}


def _crossings(run: SleepCycleRun) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    entities = {(t.entity.display_name, t.direction)
                for t in EntityTransition.objects.filter(run=run).select_related("entity")}
    relations = {(t.relation.relation_type, t.direction)
                 for t in RelationTransition.objects.filter(run=run).select_related("relation")}
    return entities, relations


def _snapshot() -> tuple[list[Any], list[Any], int, int]:
    return (
        list(Entity.objects.order_by("pk").values_list(
            "pk", "strength", "strength_evaluated_at", "strength_consolidated", "updated_at")),
        list(Relation.objects.order_by("pk").values_list("pk", "weight", "weight_evaluated_at")),
        EntityTransition.objects.count(), RelationTransition.objects.count(),
    )


def test_a_consolidation_records_exactly_the_expected_transitions(graph: dict[str, Any]) -> None:
    first = sleep_cycle_run(now=NOW)
    assert _crossings(first) == (set(), set())  # a first evaluation crosses nothing
    core = ("entities_", "relations_")  # other steps (compiled truth, actuation) add theirs
    assert {k: v for k, v in first.counts.items() if k.startswith(core)} == {
        "entities_evaluated": 6, "entities_written": 6, "entities_rose": 0, "entities_fell": 0,
        "relations_evaluated": 3, "relations_written": 3, "relations_rose": 0,
        "relations_fell": 0,
    }

    second = sleep_cycle_run(now=NOW + 20 * DAY)
    assert _crossings(second) == (
        {("fades", "fell"), ("revives", "fell"), ("old", "fell")},
        {("mentions", "fell")},  # weak: exp(-20/7)
    )
    fades = Entity.objects.get(pk=graph["fades"].pk)
    assert fades.strength_consolidated == pytest.approx(0.5 * 2 ** (-20 / 30), abs=1e-12)
    assert Entity.objects.get(pk=graph["merged"].pk).strength_consolidated is None

    entity_reinforce(entity_ids=[graph["revives"].pk], now=NOW + 20 * DAY)
    relation_reinforce(edges=[(graph["critical"].pk, graph["pinned"].pk, "mentions")],
                       now=NOW + 20 * DAY)
    third = sleep_cycle_run(now=NOW + 21 * DAY)
    assert _crossings(third) == ({("revives", "rose")}, {("mentions", "rose")})
    assert (third.counts["entities_rose"], third.counts["entities_fell"]) == (1, 0)
    transition = EntityTransition.objects.get(run=third)
    assert transition.before == pytest.approx(0.5 * 2 ** (-20 / 30), abs=1e-12)
    assert transition.after == pytest.approx(0.55 * 2 ** (-1 / 30), abs=1e-12)

    assert third.status == RunStatus.SUCCEEDED and third.finished_at is not None
    assert [s["name"] for s in third.steps][:3] == ["entities", "relations", "compiled_truth"]
    assert all(s["status"] == "succeeded" and s["duration_ms"] >= 0 for s in third.steps)


def test_running_twice_at_the_same_now_changes_nothing(graph: dict[str, Any]) -> None:
    sleep_cycle_run(now=NOW)
    sleep_cycle_run(now=NOW + 20 * DAY)
    before = _snapshot()
    again = sleep_cycle_run(now=NOW + 20 * DAY)
    assert _snapshot() == before
    assert again.counts["entities_written"] == 0 and again.counts["relations_written"] == 0
    assert again.counts["entities_evaluated"] == 6


def test_a_crossing_counts_against_the_previous_run_not_later_writes(
    graph: dict[str, Any],
) -> None:
    sleep_cycle_run(now=NOW + 20 * DAY)  # fades is below
    entity_reinforce(entity_ids=[graph["fades"].pk], now=NOW + 20 * DAY)  # stored 0.55
    run = sleep_cycle_run(now=NOW + 20 * DAY)
    assert ("fades", "rose") in _crossings(run)[0]


def _other_connection() -> psycopg.Connection[Any]:
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    return psycopg.connect(**params, autocommit=True)


def _close_and_wait(other: psycopg.Connection[Any]) -> None:
    """Close the connection and wait until its server process holds no lock."""
    pid = other.info.backend_pid
    other.close()
    for _ in range(500):
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_locks WHERE pid = %s", [pid])
            if cursor.fetchone() is None:
                return
        time.sleep(0.01)
    raise AssertionError("the closed connection's backend is still there")


def test_two_runs_cannot_overlap(graph: dict[str, Any]) -> None:
    runs = SleepCycleRun.objects.count()
    other = _other_connection()
    other.execute("SELECT pg_advisory_lock(%s)", [SLEEP_CYCLE_LOCK_KEY])
    with pytest.raises(SleepCycleBusy):
        sleep_cycle_run(now=NOW)
    assert sleep_cycle_run_task(as_of=NOW.isoformat()) == {"skipped": "busy"}
    with pytest.raises(CommandError, match="another sleep cycle"):
        call_command("consolidate")
    _close_and_wait(other)
    assert SleepCycleRun.objects.count() == runs
    assert sleep_cycle_run(now=NOW).status == RunStatus.SUCCEEDED


@pytest.mark.django_db(transaction=True)
def test_a_run_that_dies_shows_as_failed_and_the_next_completes() -> None:
    taxonomy_sync()
    factories.entity(now=NOW)
    # A process that started a run, holding the lock, then died (its connection closed).
    other = _other_connection()
    other.execute("SELECT pg_advisory_lock(%s)", [SLEEP_CYCLE_LOCK_KEY])
    other.execute(
        f"INSERT INTO {SleepCycleRun._meta.db_table} (as_of, trigger, status, started_at, "
        "config_digest, steps, counts, error, worker) VALUES "
        "(%s, 'beat', 'running', %s, '', '[]', '{}', '', 'gone:1') RETURNING id",
        [NOW, NOW],
    )
    (dead_id,) = other.execute("SELECT max(id) FROM memory_sleepcyclerun").fetchone() or (0,)
    _close_and_wait(other)
    run = sleep_cycle_run(now=NOW + DAY)
    dead = SleepCycleRun.objects.get(pk=dead_id)
    assert (dead.status, dead.error) == (RunStatus.FAILED, ABANDONED)
    assert run.status == RunStatus.SUCCEEDED and run.counts["entities_evaluated"] == 1


def test_a_failing_step_fails_the_run_but_not_the_other_steps(graph: dict[str, Any]) -> None:
    seen: list[StepContext] = []

    @sleep_step("test.boom", order=15)
    def boom(ctx: StepContext) -> dict[str, int]:
        seen.append(ctx)
        Entity.objects.update(base=0)  # rolled back with the step
        raise RuntimeError("boom")

    try:
        run = sleep_cycle_run(now=NOW)
    finally:
        sleep_step_remove("test.boom")
    assert [s["name"] for s in run.steps][:4] == ["entities", "test.boom", "relations",
                                                  "compiled_truth"]
    boom_entry = run.steps[1]
    assert boom_entry["status"] == "failed" and boom_entry["error"] == "RuntimeError: boom"
    assert run.status == RunStatus.FAILED and "test.boom" in run.error
    assert run.counts["relations_evaluated"] == 3
    assert seen[0].now == NOW and seen[0].run.pk == run.pk
    assert not Entity.objects.filter(base=0).exists()


def test_a_registered_step_runs_in_order_and_records_its_counts(graph: dict[str, Any]) -> None:
    @sleep_step("test.detectors", order=40)
    def detectors(ctx: StepContext) -> dict[str, int]:
        return {"proposals": 2}

    try:
        run = sleep_cycle_run(now=NOW)
    finally:
        sleep_step_remove("test.detectors")
    names = [s["name"] for s in run.steps]
    assert names[:3] == ["entities", "relations", "compiled_truth"]
    assert names.index("test.detectors") > names.index("compiled_truth")  # order 40 > 30
    assert run.counts["proposals"] == 2 and run.status == RunStatus.SUCCEEDED


def test_the_task_and_the_command_run_the_cycle(
    graph: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    result = sleep_cycle_run_task(as_of=NOW.isoformat())
    run = SleepCycleRun.objects.get(pk=result["run"])
    assert (run.trigger, run.as_of, run.status) == ("beat", NOW, RunStatus.SUCCEEDED)
    call_command("consolidate", "--now", "2025-06-21T03:00:00+00:00")
    out = capsys.readouterr().out
    assert "succeeded" in out and "entities_fell 3" in out
    with pytest.raises(CommandError, match="--now"):
        call_command("consolidate", "--now", "yesterday")


def test_beat_runs_it_nightly_at_three_in_the_configured_time_zone() -> None:
    from cortex_site.celery import app

    (entry,) = [e for e in settings.CORTEX_BEAT_SCHEDULE.values()
                if e["task"] == sleep_cycle_run_task.name]
    assert entry["schedule"].hour == {3} and entry["schedule"].minute == {0}
    assert settings.CELERY_TIMEZONE == settings.TIME_ZONE
    assert settings.CELERY_BEAT_SCHEDULER.startswith("django_celery_beat")
    app.loader.import_default_modules()
    assert sleep_cycle_run_task.name in app.tasks


def test_the_indexed_bound_is_refreshed_only_when_loose_or_wrong(swap_config: Any) -> None:
    taxonomy_sync()
    entity = factories.entity(now=NOW, half_life_days=30)  # stored 0.5
    sleep_cycle_run(now=NOW + DAY)
    entity.refresh_from_db()
    assert entity.strength_consolidated == pytest.approx(0.5 * 2 ** (-1 / 30))
    assert (entity.strength, entity.strength_evaluated_at) == (0.5, NOW)  # still within 10%
    sleep_cycle_run(now=NOW + 5 * DAY)
    entity.refresh_from_db()
    assert entity.strength == entity.strength_consolidated == pytest.approx(0.5 * 2 ** (-5 / 30))
    assert entity.strength_evaluated_at == NOW + 5 * DAY
    # A config under which the stored value no longer bounds the strength: refreshed.
    swap_config(config_with(entity={"emotional_multipliers": {
        "neutral": 3.0, "positive": 1.3, "negative": 1.5, "critical": 2.0}}))
    sleep_cycle_run(now=NOW + 5 * DAY)
    entity.refresh_from_db()
    assert entity.strength == pytest.approx(3 * 0.5 * 2 ** (-5 / 30))


def test_health_reports_the_last_consolidation(graph: dict[str, Any]) -> None:
    from rest_framework.test import APIClient

    assert APIClient().get("/api/health/").json()["last_consolidation"] is None
    run = sleep_cycle_run(now=NOW)
    last = APIClient().get("/api/health/").json()["last_consolidation"]
    assert (last["id"], last["status"]) == (run.pk, "succeeded")
