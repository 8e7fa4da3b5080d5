"""The one rule for queuing a Celery task from a service.

Services never import task modules (tasks sit above services). They name the task and its
keyword arguments; the task is sent once the current transaction commits, so a worker never
sees ids that are not committed yet. A broker that is away is logged, not raised: every
task's work is findable in PostgreSQL and its sweep queues it again. The task object itself
is looked up by name in the Celery app, so its declared queue, time limits and retry policy
apply (and eager mode: CELERY_TASK_ALWAYS_EAGER, `CORTEX_EAGER_TASKS=1`)."""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from celery import Task, current_app
from django.db import transaction

logger = logging.getLogger(__name__)


def task_get(name: str, /) -> Task:
    """The registered task `name`; the apps' task modules are imported on first need (a web
    process has not imported them; a worker has)."""
    if name not in current_app.tasks:
        current_app.loader.import_default_modules()
    task: Task = current_app.tasks[name]
    return task


def task_send(name: str, /, **kwargs: Any) -> None:
    """Send task `name` now (outside any transaction's concern). An unknown name raises."""
    task = task_get(name)
    try:
        task.apply_async(kwargs=kwargs)
    except Exception as error:  # the broker is away: the task's sweep re-queues the work
        # One line, the errors' classes only: a traceback in a command's output says nothing
        # more to an operator, and a broker's message may carry its address.
        logger.warning("could not queue %s (%s); its sweep will queue it again", name,
                       _classes(error))


def _classes(error: BaseException) -> str:
    """The error's class and, when it was raised from another (`raise ... from`), the first
    cause's: kombu's OperationalError from redis's ConnectionRefusedError."""
    first = error
    while first.__cause__ is not None:
        first = first.__cause__
    named = type(error).__name__
    return named if first is error else f"{named}, from {type(first).__name__}"


def task_enqueue(name: str, /, **kwargs: Any) -> None:
    """Send task `name` with these keyword arguments once the current transaction commits
    (at once outside a transaction). The callback names the task in its repr."""
    transaction.on_commit(partial(task_send, name, **kwargs), robust=True)
