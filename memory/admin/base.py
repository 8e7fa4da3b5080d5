"""What every admin of memory shares: read-only lists, and actions that show a refusal of
the services (a memory.errors.DomainError) as a message instead of an error page."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.contrib import admin, messages
from django.http import HttpRequest

from memory.errors import DomainError

T = TypeVar("T")


def refusal_shown(model_admin: admin.ModelAdmin[Any], request: HttpRequest,
                  call: Callable[[], T],
                  *, level: int = messages.WARNING) -> T | None:
    """`call()`; a DomainError it raises is shown as a message (at `level`) and gives None."""
    try:
        return call()
    except DomainError as error:
        model_admin.message_user(request, error.describe(), level)
        return None


def action_apply(model_admin: admin.ModelAdmin[Any], request: HttpRequest, items: Iterable[Any],
                 call: Callable[[Any], Any], done: str) -> None:
    """`call` on each item; then one message with how many were `done`, and one warning per
    item a service refused (its DomainError, named after the item)."""
    count, refused = 0, []
    for item in items:
        try:
            call(item)
            count += 1
        except DomainError as error:
            refused.append(f"{item}: {error.describe()}")
    if count:
        model_admin.message_user(request, f"{done}: {count}.", messages.SUCCESS)
    for message in refused:
        model_admin.message_user(request, message, messages.WARNING)


class ReadOnlyAdmin(admin.ModelAdmin[Any]):
    """Shown, never edited here: the rows change only through services (actions, commands)."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
