"""The PostgreSQL advisory locks that serialize writers, in one place: the retain lock (every
writer of retain state) and the sleep-cycle lock (two runs never overlap). Both are
session-level: they outlive transactions, and a process that dies loses its connection,
hence its lock. The prepare lock: one process migrates and seeds the database at a time. The
outbox lock: one publisher of the NATS outbox at a time (docs/nats.md)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import OperationalError, connection, transaction

from memory.errors import Busy

RETAIN_LOCK_KEY = 0x636F7274_0003
SLEEP_CYCLE_LOCK_KEY = 0x636F7274_0002
OUTBOX_LOCK_KEY = 0x636F7274_0010
PREPARE_LOCK_KEY = 0x636F7274_0020
LOCK_TIMEOUT_SECONDS = 60.0
LOCK_NOT_AVAILABLE = "55P03"


class RetainBusy(Busy, RuntimeError):
    """Another worker holds the retain lock for longer than we waited."""


class SleepCycleBusy(Busy, RuntimeError):
    """Another sleep cycle is running."""


class OutboxBusy(Busy, RuntimeError):
    """Another drain is publishing the outbox."""


def _unlock(key: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_unlock(%s)", [key])


@contextmanager
def retain_lock(*, timeout: float = LOCK_TIMEOUT_SECONDS) -> Iterator[None]:
    """The one lock every writer of retain state holds (session-level: across transactions).
    Waiters queue in PostgreSQL, first come first served; RetainBusy after `timeout`."""
    try:
        # SET LOCAL: the timeout ends with this (sub)transaction; the lock outlives it.
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL lock_timeout = {max(1, int(timeout * 1000))}")
            cursor.execute("SELECT pg_advisory_lock(%s)", [RETAIN_LOCK_KEY])
    except OperationalError as exc:
        if getattr(exc.__cause__, "sqlstate", "") == LOCK_NOT_AVAILABLE:
            raise RetainBusy("another worker is retaining") from None
        raise
    try:
        yield
    finally:
        _unlock(RETAIN_LOCK_KEY)


@contextmanager
def prepare_lock() -> Iterator[None]:
    """Held while the database is prepared (memory.services.setup); waits for the holder."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [PREPARE_LOCK_KEY])
    try:
        yield
    finally:
        _unlock(PREPARE_LOCK_KEY)


@contextmanager
def sleep_cycle_lock() -> Iterator[None]:
    """Held for a whole sleep-cycle run; SleepCycleBusy at once when another run holds it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [SLEEP_CYCLE_LOCK_KEY])
        row = cursor.fetchone()
    if not row or not row[0]:
        raise SleepCycleBusy("another sleep cycle is running")
    try:
        yield
    finally:
        _unlock(SLEEP_CYCLE_LOCK_KEY)


@contextmanager
def outbox_lock() -> Iterator[None]:
    """Held while the outbox is published (one publisher keeps the order); OutboxBusy at once
    when another drain holds it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [OUTBOX_LOCK_KEY])
        row = cursor.fetchone()
    if not row or not row[0]:
        raise OutboxBusy("another drain is publishing the outbox")
    try:
        yield
    finally:
        _unlock(OUTBOX_LOCK_KEY)
