"""The base of memory's commands: a refusal of the services (memory.errors.DomainError) is
shown as a CommandError (one line on stderr, exit status 1), in this one place."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from memory.errors import DomainError


class DomainCommand(BaseCommand):
    def execute(self, *args: Any, **options: Any) -> str | None:
        try:
            return super().execute(*args, **options)
        except DomainError as error:
            raise CommandError(error.describe()) from error
