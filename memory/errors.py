"""The domain's one error type. Services raise it; one DRF exception handler
(`cortex_site.api_errors.exception_handler`) turns it into the API's error shape
`{"error": {"code", "message", "fields"}}` with its HTTP status, and admin actions and
commands show its message. Nothing above the services catches and translates errors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar


class DomainError(Exception):
    """A refusal the caller can act on: a stable `code`, a one-line `message`, the offending
    `fields` (field name -> problem) and the HTTP status it maps to. Never carries a secret:
    messages name fields and limits, not the values."""

    status: ClassVar[int] = 400
    default_code: ClassVar[str] = "invalid"
    default_message: ClassVar[str] = "The request is invalid."
    default_fields: ClassVar[Mapping[str, Any]] = {}

    def __init__(self, message: str | None = None, *, code: str | None = None,
                 fields: Mapping[str, Any] | None = None) -> None:
        self.message = message or self.default_message
        self.code = code or self.default_code
        self.fields: dict[str, Any] = dict(self.default_fields if fields is None else fields)
        super().__init__(self.message)

    def describe(self) -> str:
        """The message and, when there are any, the fields: one line for a person."""
        if not self.fields:
            return self.message
        return f"{self.message} {_describe(self.fields)}"


def _describe(fields: Mapping[str, Any]) -> str:
    parts = []
    for name, problem in fields.items():
        text = f"({_describe(problem)})" if isinstance(problem, Mapping) else str(problem)
        parts.append(f"{name}: {text}")
    return "; ".join(parts)


class Invalid(DomainError):
    """The input is wrong; `fields` says where (400)."""


class TooLarge(Invalid):
    """The input, or one of its parts, is over a size limit (413). An `Invalid`: a caller
    that drops the bad items of a batch drops these too."""

    status = 413
    default_code = "payload_too_large"
    default_message = "The request or one of its payloads is over the size limit."


class NotFound(DomainError):
    status = 404
    default_code = "not_found"
    default_message = "Not found."


class Refused(DomainError):
    """The request is well formed but the current state forbids it (409)."""

    status = 409
    default_code = "refused"
    default_message = "The current state does not allow this."


class Unprocessable(DomainError):
    """The request conflicts with an earlier one (an idempotency key reused with another body)."""

    status = 422
    default_code = "unprocessable"
    default_message = "The request conflicts with an earlier one."


class Busy(DomainError):
    """Another run holds the lock; retry later (409)."""

    status = 409
    default_code = "busy"
    default_message = "Another run is in progress; try again later."


class DiskFull(DomainError):
    """The database's disk is full: the write was rolled back (503; send it again later)."""

    status = 503
    default_code = "disk_full"
    default_message = ("The database's disk is full: nothing was written. Free some space on "
                       "it, then send this again (cortex doctor shows the database's size by "
                       "table).")


DISK_FULL_SQLSTATE = "53100"  # PostgreSQL's disk_full: a file it could not extend or write


def disk_full(error: BaseException | None) -> bool:
    """The database refused a write for want of disk space (its transaction rolled back), or
    could not even open a session: a new one writes its cache file ("FATAL: could not write
    init file: No space left on device"). psycopg's error, or Django's wrapping it."""
    if error is None:
        return False
    if any(getattr(e, "sqlstate", None) == DISK_FULL_SQLSTATE for e in (error, error.__cause__)):
        return True
    return type(error).__name__ == "OperationalError" and "No space left on device" in str(error)
