"""The Retain Job on real Celery workers and a real Redis: redelivery changes nothing, two
workers on overlapping batches build the graph one process would, and a worker killed with
SIGKILL in the middle of a batch loses nothing (every observation retained exactly once)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db.models import Count

from memory.config import config_get
from memory.models import Entity, EntityMention, Observation, Relation, RelationEvidence
from memory.selectors.graph import graph_digest
from memory.services import observations as observation_service
from memory.services.embeddings import embedding_passes_run
from memory.services.locks import retain_lock
from memory.services.rebuild import graph_clear
from memory.services.retain import retain_drain, retain_sweep
from memory.services.taxonomy import taxonomy_sync
from memory.tasks.retain import retain_task
from tests.retain.conftest import retain_config
from tests.retain.factories import submit, synthetic
from tests.retain.workers import Worker, purge_queue, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Any]:
    started: list[Worker] = []
    purge_queue()

    def start(name: str, **kwargs: Any) -> Worker:
        worker = Worker(name, tmp_path / f"{name}.log", **kwargs)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()
    purge_queue()


@pytest.fixture
def quiet_submit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Observations stored without queuing their task: the test queues them itself."""
    monkeypatch.setattr(observation_service, "retain_enqueue", lambda **kwargs: None)


def retain_runs(*workers: Worker, outcome: str = "succeeded") -> int:
    return sum(1 for w in workers for line in w.output().splitlines()
               if "Task memory.retain[" in line and outcome in line)


def settled(*workers: Worker) -> bool:
    """Every retain task a worker received has ended."""
    return all(retain_runs(w, outcome="received")
               == retain_runs(w) + retain_runs(w, outcome="retry") for w in workers)


def pending() -> int:
    return Observation.objects.filter(status="pending").count()


def single_process_digest() -> str:
    """The graph one process builds from the same observations, from scratch."""
    graph_clear()
    retain_drain()
    return graph_digest()


def assert_exactly_once() -> None:
    """Each observation counted once: every entity's recalls are its mentions but the first,
    every edge's evidence its evidence rows."""
    assert not Observation.objects.exclude(status="retained").exists()
    mentions = dict(EntityMention.objects.values_list("entity").annotate(
        n=Count("observation", distinct=True)).values_list("entity", "n"))
    for pk, count in Entity.objects.values_list("id", "retrieval_count"):
        assert count == mentions[pk] - 1
    rows = dict(RelationEvidence.objects.values_list("relation").annotate(
        n=Count("id")).values_list("relation", "n"))
    for pk, evidence in Relation.objects.values_list("id", "evidence_count"):
        assert evidence == rows[pk]


def test_redelivered_tasks_change_nothing(workers: Any, quiet_submit: None) -> None:
    taxonomy_sync()
    ids = submit(*synthetic(200, seed=3))
    worker = workers("idem")
    retain_task.delay(ids)
    wait_for(lambda: pending() == 0, what="the observations to be retained", log=worker.log)
    embedding_passes_run()
    digest = graph_digest()
    for _ in range(3):
        retain_task.delay(ids)
    wait_for(lambda: retain_runs(worker) >= 4, what="the redelivered tasks to run",
             log=worker.log)
    assert graph_digest() == digest
    assert_exactly_once()
    assert single_process_digest() == digest


def test_two_workers_on_overlapping_batches_build_the_graph_one_would(
    workers: Any, quiet_submit: None
) -> None:
    taxonomy_sync()
    ids = submit(*synthetic(600, seed=4))
    first, second = workers("one"), workers("two")
    with retain_lock(timeout=5):  # both workers take a task and wait for the lock
        for batch in (ids[0:400], ids[200:600], ids[100:500], ids, ids[550:]):
            retain_task.delay(batch)
        wait_for(lambda: all("Task memory.retain[" in w.output() for w in (first, second)),
                 what="both workers to take a task", log=second.log)
    wait_for(lambda: retain_runs(first, second) >= 5 and settled(first, second),
             what="the five tasks to run", log=first.log)
    assert pending() == 0
    assert retain_runs(first) and retain_runs(second)  # both took part
    embedding_passes_run()
    assert_exactly_once()
    by_workers = graph_digest()
    assert single_process_digest() == by_workers


def test_a_worker_killed_mid_batch_loses_nothing(workers: Any, quiet_submit: None) -> None:
    taxonomy_sync()
    total = 3000
    ids = submit(*synthetic(total, seed=11))
    victim = workers("victim")
    retain_task.delay(ids)
    wait_for(lambda: pending() < total - 200, what="the batch to be under way", log=victim.log,
             pause=0.01)
    victim.kill()
    left = pending()
    assert 0 < left < total, "the batch ended before the kill: nothing was tested"
    rescuer = workers("rescuer")
    assert retain_sweep(config=retain_config(sweep_after_seconds=0)) > 0
    wait_for(lambda: pending() == 0, what="the rescuer to finish", log=rescuer.log)
    # The chunk in flight when it died (unless the kill fell between two chunks) counted an
    # attempt and rolled back; it was retried once, one observation at a time.
    assert set(Observation.objects.values_list("attempts", flat=True)) <= {1, 2}
    assert Observation.objects.filter(attempts=2).count() <= config_get().retain.chunk_size
    embedding_passes_run()
    assert_exactly_once()
    survived = graph_digest()
    assert single_process_digest() == survived
