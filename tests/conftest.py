from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import override_settings

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
FIXTURES = SHARED / "fixtures"


@pytest.fixture
def shared_fixtures() -> Path:
    if not FIXTURES.is_dir():
        pytest.skip("../shared/fixtures is absent")
    return FIXTURES


@pytest.fixture(scope="session", autouse=True)
def _compiled_truths_in_a_temporary_directory(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    """Sleep cycles in tests write compiled-truth files: never into the user's CORTEX_HOME."""
    with override_settings(CORTEX_COMPILED_DIR=tmp_path_factory.mktemp("compiled")):
        yield


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
