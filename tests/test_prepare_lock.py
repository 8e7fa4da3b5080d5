"""Preparing the database is one process at a time: `cortex up` prepares at every start
(memory.management.commands.up), beside any command that prepares a database it finds not
ready (cortex_ensure). Both seeded the beat schedule at once, and one of them failed on the
other's row ('Periodic task with this Name already exists', tests/test_doctor.py in CI)."""

from __future__ import annotations

import psycopg
import pytest
from django.db import OperationalError, connection, transaction

from memory.services.locks import PREPARE_LOCK_KEY
from memory.services.setup import cortex_prepare
from memory.services.sql import connection_url


@pytest.mark.django_db
def test_cortex_prepare_waits_for_another_process_preparing() -> None:
    with psycopg.connect(connection_url(), autocommit=True) as other:
        other.execute("SELECT pg_advisory_lock(%s)", [PREPARE_LOCK_KEY])
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '300ms'")
        with pytest.raises(OperationalError, match="lock timeout"), transaction.atomic():
            cortex_prepare()
        other.execute("SELECT pg_advisory_unlock(%s)", [PREPARE_LOCK_KEY])
    cortex_prepare()  # free again: it runs, and leaves the lock free
    with psycopg.connect(connection_url(), autocommit=True) as other:
        row = other.execute("SELECT pg_try_advisory_lock(%s)", [PREPARE_LOCK_KEY]).fetchone()
        assert row == (True,)
