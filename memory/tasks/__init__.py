"""Celery tasks of `memory` (autodiscovered as `memory.tasks`); one module per topic."""

from memory.tasks.consolidation import consolidation_run_task  # noqa: F401
