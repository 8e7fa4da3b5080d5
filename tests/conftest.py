from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from django.test import override_settings

from memory.config import DecayConfig, config_get, config_swap

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
FIXTURES = SHARED / "fixtures"


@pytest.fixture
def config() -> DecayConfig:
    return config_get()


@pytest.fixture
def swap_config() -> Iterator[Callable[[DecayConfig], DecayConfig]]:
    """`swap_config(cfg)` makes `cfg` the process's configuration until the test ends (swaps
    nest: the last one wins, and they are undone in reverse order)."""
    with ExitStack() as stack:

        def swap(cfg: DecayConfig) -> DecayConfig:
            stack.enter_context(config_swap(cfg))
            return cfg

        yield swap


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
def _recall_threads_disconnected(django_db_setup: None) -> Iterator[None]:
    """Recall reads each vector strategy's nearest in a `recall-scan` thread, and context
    assembly recalls beyond a project in a thread of its own; each keeps its database
    connection: closed before the test database is dropped (one task a thread, held at a
    barrier until every thread of the pool has one)."""
    yield
    import threading

    from django.db import connections

    from memory.services.context import _BEYOND
    from memory.services.recall import _SCANNING

    for pool in (_BEYOND, _SCANNING):
        gate = threading.Barrier(pool._max_workers)

        def closed(gate: threading.Barrier = gate) -> None:
            gate.wait(timeout=10)
            connections.close_all()

        for done in [pool.submit(closed) for _ in range(pool._max_workers)]:
            done.result(timeout=10)


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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Schemathesis names each operation's test `test_x[GET /api/...]` but gives them all the
    node id `...::test_x`. pytest-xdist schedules by node id, so it ran one of each test_x in
    tests/test_api_fuzz.py (3 of 66) and said nothing; each gets its name as its id."""
    for item in items:
        path, _, name = item.nodeid.rpartition("::")
        if item.name.startswith(f"{name}["):
            item._id = type(item._id).parse(f"{path}::{item.name}")  # pytest 9's NodeId


@pytest.fixture(autouse=True)
def _recall_statistics_of_this_test() -> None:
    """Recall keeps each source's lexeme statistics in the process for term_stats_seconds
    (memory/selectors/recall_terms.py): a test reads its own database's, not those an earlier
    test's data left (which could expire between two recalls a test compares)."""
    from memory.selectors import recall_terms

    recall_terms._cache.clear()


@pytest.fixture
def rate_forgotten() -> Callable[[int], None]:
    """`rate_forgotten(agent_id)`: the counts Redis keeps for this agent id forgotten. A test
    database reuses the ids of an earlier run, and a day's or an hour's window outlives the
    run that counted in it (the 429 would come one request early)."""
    import redis
    from django.conf import settings

    def forget(agent_id: int) -> None:
        broker = redis.Redis.from_url(settings.REDIS_URL)
        stale = list(broker.scan_iter(f"cortex:throttle:agent:{agent_id}:*"))
        if stale:
            broker.delete(*stale)

    return forget
