"""Every Celery task of Cortex is routed to a declared queue and declares its time limits and
retry policy; the long jobs have a queue of their own."""

from __future__ import annotations

import pytest
from celery import Task
from django.conf import settings

from cortex_site.celery import app

LONG_JOBS = {"memory.sleep_cycle_run", "memory.retain_embed", "memory.backup_nightly"}


def _ours() -> dict[str, Task]:
    app.loader.import_default_modules()
    return {name: task for name, task in app.tasks.items()
            if name.split(".")[0] in {"memory", "insight", "actuation"}}


def test_the_tasks_are_found() -> None:
    assert {"memory.retain", "insight.analysis_run"} | LONG_JOBS <= set(_ours())


@pytest.mark.parametrize("name", sorted(_ours()))
def test_each_task_declares_queue_limits_and_retries(name: str) -> None:
    task = _ours()[name]
    queues = {queue.name for queue in settings.CELERY_TASK_QUEUES}
    route = settings.CELERY_TASK_ROUTES.get(name)
    assert route is not None and route["queue"] in queues, f"{name} has no declared queue"
    expected = settings.CORTEX_QUEUE_LONG if name in LONG_JOBS else settings.CORTEX_QUEUE_DEFAULT
    assert route["queue"] == expected
    assert getattr(task, "queue", None) is None, f"{name} sets its own queue: no route applies"
    assert task.soft_time_limit and task.time_limit, f"{name} declares no time limits"
    assert task.soft_time_limit < task.time_limit
    assert "max_retries" in type(task).__dict__ or task.max_retries != Task.max_retries, (
        f"{name} declares no retry policy")
