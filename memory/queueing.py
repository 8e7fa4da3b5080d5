"""The one rule for queuing a Celery task from a service.

Services never import task modules (tasks sit above services). They name the task and its
keyword arguments; the task is sent once the current transaction commits, so a worker never
sees ids that are not committed yet. A broker that is away is logged, not raised: every
task's work is findable in PostgreSQL and its sweep queues it again. The task object itself
is looked up by name in the Celery app, so its declared queue, time limits and retry policy
apply (and eager mode in unit tests)."""

from __future__ import annotations

import logging
from typing import Any

from celery import current_app
from django.db import transaction

logger = logging.getLogger(__name__)


def task_send(name: str, /, **kwargs: Any) -> None:
    """Send task `name` now (outside any transaction's concern)."""
    try:
        current_app.tasks[name].apply_async(kwargs=kwargs)
    except Exception:  # the broker is away: the task's sweep re-queues the work
        logger.warning("could not queue %s; its sweep will", name, exc_info=True)


def task_enqueue(name: str, /, **kwargs: Any) -> None:
    """Send task `name` with these keyword arguments once the current transaction commits."""
    transaction.on_commit(lambda: task_send(name, **kwargs))
