"""Who decides when the command line does not say: the local operator."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from memory.errors import NotFound


def operator_default() -> str:
    """The first active superuser's username (`cortex up` creates one)."""
    user = (get_user_model().objects.filter(is_active=True, is_superuser=True)
            .order_by("id").first())
    if user is None:
        raise NotFound("No operator account: run `cortex up` once, or pass --by.")
    return str(user.get_username())
