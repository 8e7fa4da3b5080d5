"""commit_unwaited: a transaction of its own commits without waiting for the disk; inside a
caller's transaction it changes nothing (the caller's writes keep their durability)."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from memory.services.sql import commit_unwaited

pytestmark = pytest.mark.django_db(transaction=True)


def _setting() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return str(cursor.fetchone()[0])


def test_its_own_transaction_commits_unwaited_and_only_it() -> None:
    with transaction.atomic():
        commit_unwaited()
        assert _setting() == "off"
    assert _setting() == "on"


def test_inside_a_callers_transaction_it_changes_nothing() -> None:
    with transaction.atomic(), transaction.atomic():
        commit_unwaited()
        assert _setting() == "on"
