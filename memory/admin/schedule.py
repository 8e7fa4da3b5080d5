"""The schedule as the console shows it (django-celery-beat's pages, where the operator edits
the sleep cycle's and the backup's time): a periodic task's list in the columns that say
when it runs and when it last ran (the package's seven do not fit beside the navigation at
1280 px), and a crontab's fields named in words ("Minutes", not "Minute(s)")."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest
from django_celery_beat.admin import CrontabScheduleAdmin, PeriodicTaskAdmin
from django_celery_beat.models import CrontabSchedule, PeriodicTask


def _plural(label: str) -> str:
    """"Minute(s)" -> "Minutes", "Day(s) Of The Week" -> "Days of the week"."""
    words = label.replace("(s)", "s").split()
    return " ".join([words[0], *(w.lower() for w in words[1:])]) if words else label


admin.site.unregister(PeriodicTask)
admin.site.unregister(CrontabSchedule)


@admin.register(PeriodicTask)
class ScheduleTaskAdmin(PeriodicTaskAdmin):  # type: ignore[misc]
    list_display = ("name", "enabled", "scheduler", "last_run_at")


@admin.register(CrontabSchedule)
class CrontabAdmin(CrontabScheduleAdmin):  # type: ignore[misc]
    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False,
                 **kwargs: Any) -> type[forms.ModelForm[Any]]:
        form: type[forms.ModelForm[Any]] = super().get_form(request, obj, change, **kwargs)
        for field in form.base_fields.values():
            if field.label:
                field.label = _plural(str(field.label))
        return form
