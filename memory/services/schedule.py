"""The beat schedule: code seeds it, the operator owns it after that."""

from __future__ import annotations

from celery import current_app
from django.conf import settings
from django_celery_beat.models import PeriodicTask
from django_celery_beat.schedulers import ModelEntry


def beat_schedule_ensure() -> list[str]:
    """Create the periodic tasks of CORTEX_BEAT_SCHEDULE that do not exist yet (by name);
    never touch an existing one, so an operator's edit in the admin survives restarts."""
    existing = set(PeriodicTask.objects.values_list("name", flat=True))
    created = []
    for name, entry in settings.CORTEX_BEAT_SCHEDULE.items():
        if name not in existing:
            ModelEntry.from_entry(name, app=current_app, **entry)
            created.append(name)
    return created
