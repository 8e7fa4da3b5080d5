"""The beat schedule is seeded from code once; the operator's edits in the admin stay."""

from __future__ import annotations

import pytest
from django.conf import settings
from django_celery_beat.models import CrontabSchedule, PeriodicTask

from memory.services.schedule import beat_schedule_ensure

SLEEP = "memory: sleep cycle"


@pytest.mark.django_db
def test_every_entry_is_seeded_once_and_an_operator_edit_survives() -> None:
    assert sorted(beat_schedule_ensure()) == sorted(settings.CORTEX_BEAT_SCHEDULE)
    task = PeriodicTask.objects.get(name=SLEEP)
    assert (task.task, task.crontab.hour, task.crontab.minute) == (
        "memory.sleep_cycle_run", "3", "0"
    )

    edited, _ = CrontabSchedule.objects.get_or_create(
        minute="30", hour="4", day_of_week="*", day_of_month="*", month_of_year="*",
        timezone=settings.TIME_ZONE,
    )
    task.crontab = edited
    task.save()

    assert beat_schedule_ensure() == []
    task.refresh_from_db()
    assert (task.crontab.hour, task.crontab.minute) == ("4", "30")
    assert PeriodicTask.objects.filter(name=SLEEP).count() == 1


def test_beat_itself_installs_nothing_over_the_operator_schedule() -> None:
    assert settings.CELERY_BEAT_SCHEDULE == {}


def test_every_scheduled_task_exists() -> None:
    from cortex_site.celery import app

    app.loader.import_default_modules()
    names = {entry["task"] for entry in settings.CORTEX_BEAT_SCHEDULE.values()}
    assert names <= set(app.tasks), names - set(app.tasks)
