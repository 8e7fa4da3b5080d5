"""Celery tasks of `memory` (autodiscovered as `memory.tasks`); one module per topic."""

from memory.tasks.backup import backup_nightly_task  # noqa: F401
from memory.tasks.outbox import outbox_drain_task  # noqa: F401
from memory.tasks.retain import retain_embed_task, retain_sweep_task, retain_task  # noqa: F401
from memory.tasks.sleep_cycle import sleep_cycle_run_task  # noqa: F401
