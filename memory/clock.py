"""The one clock of the process. Code asks `clock.now()`; tests freeze it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime

from django.utils import timezone

_frozen: datetime | None = None


def now() -> datetime:
    return _frozen if _frozen is not None else timezone.now()


@contextmanager
def frozen(at: datetime) -> Iterator[datetime]:
    """Make `now()` return `at` inside the block (tests, `--now` replays)."""
    global _frozen
    previous, _frozen = _frozen, at
    try:
        yield at
    finally:
        _frozen = previous
