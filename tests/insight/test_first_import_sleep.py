"""A first import ends with a sleep cycle (issue 27: a consolidated graph), run by its retain
stage once nothing is left pending; only on a graph no sleep cycle has consolidated yet; one
interrupted before it finished runs it at the next `cortex ingest`, even with nothing new to
read."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from insight.management.first_import_sleep import TRIGGER, first_sleep, first_sleep_wanted
from memory.models import Entity, RunStatus, SleepCycleRun
from memory.services.locks import SLEEP_CYCLE_LOCK_KEY
from memory.services.sleep_cycle import ABANDONED
from memory.services.sql import connection_url
from memory.services.taxonomy import taxonomy_sync
from tests.decay import factories
from tests.decay.conftest import NOW

from .producers.helpers import SESSION, record, write

CORTEX = shutil.which("cortex") or str(Path(sys.executable).parent / "cortex")


@pytest.mark.django_db
def test_wanted_on_a_graph_no_sleep_cycle_consolidated() -> None:
    taxonomy_sync()
    assert not first_sleep_wanted()  # nothing to consolidate
    assert first_sleep() is None and not SleepCycleRun.objects.exists()
    factories.entity(now=NOW, display_name="billing-api")
    SleepCycleRun.objects.create(as_of=NOW, trigger="command", started_at=NOW,
                                 status=RunStatus.FAILED, error=ABANDONED)
    assert first_sleep_wanted()  # a failed run consolidated nothing
    run = first_sleep()
    assert run is not None and run.status == RunStatus.SUCCEEDED and run.trigger == TRIGGER
    assert [s["name"] for s in run.steps][:2] == ["entities", "relations"]
    assert Entity.objects.get().strength_consolidated is not None  # the cycle evaluated it
    assert not first_sleep_wanted()
    assert first_sleep() is None
    assert SleepCycleRun.objects.filter(status=RunStatus.SUCCEEDED).count() == 1


@pytest.mark.django_db
def test_a_sleep_cycle_running_elsewhere_is_left_to_finish() -> None:
    taxonomy_sync()
    factories.entity(now=NOW, display_name="billing-api")
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as other:  # a worker's run holds the lock
        other.execute("SELECT pg_advisory_lock(%s)", [SLEEP_CYCLE_LOCK_KEY])
        assert first_sleep() is None
    assert not SleepCycleRun.objects.exists() and first_sleep_wanted()


def _ingest(root: Path) -> dict[str, Any]:
    env = {**os.environ, "DATABASE_URL": connection_url(), "REDIS_URL": settings.REDIS_URL,
           "CORTEX_LOG_LEVEL": "WARNING"}
    done = subprocess.run([CORTEX, "ingest", "claude-code", str(root), "--json"], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.django_db(transaction=True)
def test_the_first_import_ends_with_one_sleep_cycle_and_a_rerun_adds_none(
        tmp_path: Path) -> None:
    root = tmp_path / "projects"
    path = write(root / "-home-op-code-shop-api" / f"{SESSION}.jsonl",
                 record("u1", text="please always run the tests before pushing"),
                 record("a1", kind="assistant", text="I will run pytest in shop-api first"))
    stages = _ingest(root)["stages"]
    assert isinstance(stages, dict) and stages["entities_created"] > 0
    runs = list(SleepCycleRun.objects.all())
    assert [(r.trigger, r.status) for r in runs] == [(TRIGGER, RunStatus.SUCCEEDED)]
    # It ran after the retain stage: every entity it made was evaluated.
    assert not Entity.objects.exclude(status="merged").filter(
        strength_consolidated__isnull=True).exists()
    assert runs[0].counts["entities_evaluated"] == Entity.objects.exclude(
        status="merged").count()

    _ingest(root)  # unchanged: nothing to read, a sleep cycle finished
    assert SleepCycleRun.objects.count() == 1

    # Killed during its sleep cycle (its row left running): the next run, with nothing new
    # to read, finishes one; a line appended then is analyzed without another.
    SleepCycleRun.objects.update(status=RunStatus.RUNNING)
    _ingest(root)
    assert list(SleepCycleRun.objects.order_by("pk").values_list("trigger", "status")) == [
        (TRIGGER, RunStatus.FAILED), (TRIGGER, RunStatus.SUCCEEDED)]
    with path.open("ab") as fh:
        fh.write(json.dumps(record("u2", text="the webhooks module of shop-api is flaky"))
                 .encode() + b"\n")
    summary = _ingest(root)
    assert summary["events_stored"] == 1 and summary["stages"]["events_analyzed"] == 1
    assert SleepCycleRun.objects.count() == 2
