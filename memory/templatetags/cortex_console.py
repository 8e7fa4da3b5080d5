"""`{% cortex_dashboard as dash %}`: the dashboard's data for the admin's home template (the
admin site's index view is Django's own; this tag is how the home gets its context)."""

from __future__ import annotations

from typing import Any

from django import template

from memory.admin.dashboard import dashboard_context

register = template.Library()


@register.simple_tag
def cortex_dashboard() -> dict[str, Any]:
    return dashboard_context()
