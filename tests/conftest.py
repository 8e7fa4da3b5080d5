from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
FIXTURES = SHARED / "fixtures"


@pytest.fixture
def shared_fixtures() -> Path:
    if not FIXTURES.is_dir():
        pytest.skip("../shared/fixtures is absent")
    return FIXTURES


@pytest.fixture(scope="session", autouse=True)
def _flush_past_the_append_only_log() -> Iterator[None]:
    """Transactional tests end with a TRUNCATE of every table; the event log's trigger refuses
    TRUNCATE, so the test flush (and only it) runs with that trigger ignored."""
    import pgtrigger
    from django.test import TransactionTestCase

    original = getattr(TransactionTestCase, "_fixture_teardown")  # noqa: B009 - private, untyped

    def teardown(self: TransactionTestCase) -> None:
        with pgtrigger.ignore("memory.MemoryEvent:no_truncate"):
            original(self)

    setattr(TransactionTestCase, "_fixture_teardown", teardown)  # noqa: B010
    yield
    setattr(TransactionTestCase, "_fixture_teardown", original)  # noqa: B010
