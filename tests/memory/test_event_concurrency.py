"""Concurrent writers and late commits, each client on its own database connection."""

from __future__ import annotations

import functools
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from django.db import connection, transaction

from memory.models.events import MemoryEvent
from memory.selectors.events import event_batch_after
from memory.services.events import EventAppendResult, event_append_many

pytestmark = pytest.mark.django_db(transaction=True)


class Worker(threading.Thread):
    """Runs `work` on its own connection; keeps its result or its exception."""

    def __init__(self, work: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self.work = work
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self.work()
        except BaseException as error:  # noqa: BLE001 - reported by the test
            self.error = error
        finally:
            connection.close()

    def outcome(self) -> Any:
        self.join(60)
        assert not self.is_alive(), "worker did not finish"
        if self.error is not None:
            raise self.error
        return self.result


def _wait_until_blocked_on_a_lock() -> None:
    """Poll (no sleep-and-hope) until some backend of this database waits on a lock."""
    with connection.cursor() as cursor:
        for _ in range(100_000):
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return
    raise AssertionError("nobody ever waited on a lock")


def test_eight_clients_with_overlapping_batches_store_each_event_exactly_once() -> None:
    rng = random.Random(7)
    universe = [f"evt-{i:05d}" for i in range(4000)]
    own = [universe[k::8] for k in range(8)]  # each client's 500 events
    barrier = threading.Barrier(8)

    def client(k: int) -> list[EventAppendResult]:
        ids = own[k] + rng.sample(universe, 50)  # 10% duplicates, many owned by others
        random.Random(k).shuffle(ids)
        barrier.wait()
        results: list[EventAppendResult] = []
        for start in range(0, len(ids), 110):
            batch = [{"source_id": i, "payload": {"by": k}} for i in ids[start : start + 110]]
            results += event_append_many(source="race", events=batch)
        return results

    workers = [Worker(functools.partial(client, k)) for k in range(8)]
    for worker in workers:
        worker.start()
    answers = [result for worker in workers for result in worker.outcome()]

    stored = dict(MemoryEvent.objects.filter(source="race").values_list("source_id", "id"))
    assert sorted(stored) == universe  # none lost, none twice
    created = Counter(r.source_id for r in answers if r.created)
    assert set(created.values()) == {1} and len(created) == len(universe)
    assert all(stored[r.source_id] == r.id for r in answers)  # every answer is the stored row


@contextmanager
def _held_open(events: list[dict[str, Any]]) -> Iterator[tuple[threading.Event, list[bool]]]:
    """Insert `events` in a transaction on another connection and hold it open until the
    caller sets the event; `commit[0]` says whether it then commits or rolls back."""
    inserted, release, commit = threading.Event(), threading.Event(), [True]

    def hold() -> list[EventAppendResult]:
        with transaction.atomic():
            results = event_append_many(source="late", events=events)
            inserted.set()
            release.wait(60)
            if not commit[0]:
                transaction.set_rollback(True)
        return results

    worker = Worker(hold)
    worker.start()
    assert inserted.wait(60)
    try:
        yield release, commit
    finally:
        release.set()
        worker.outcome()


@pytest.mark.parametrize("first_commits", [True, False])
def test_a_duplicate_waits_for_the_first_writer_and_points_at_a_committed_row(
    first_commits: bool,
) -> None:
    with _held_open([{"source_id": "same"}]) as (release, commit):
        commit[0] = first_commits
        second = Worker(lambda: event_append_many(source="late", events=[{"source_id": "same"}]))
        second.start()
        _wait_until_blocked_on_a_lock()
        release.set()
    (answer,) = second.outcome()
    stored = MemoryEvent.objects.get(source="late", source_id="same")
    assert answer.id == stored.id
    assert answer.created is (not first_commits)


def test_a_reader_never_skips_an_event_committed_late() -> None:
    with _held_open([{"source_id": "minted-first"}]) as (release, _):
        event_append_many(source="late", events=[{"source_id": "committed-first"}])
        early = MemoryEvent.objects.get(source_id="committed-first")
        assert MemoryEvent.objects.count() == 1  # the held one is not visible yet

        seen, cursor = event_batch_after(cursor=None, limit=100)
        # committed-first has the larger ULID but may not be handed out before the held
        # transaction ends: a cursor past it would skip minted-first forever.
        assert seen == []
        release.set()
    late = MemoryEvent.objects.get(source_id="minted-first")
    assert late.id < early.id  # minted before, committed after
    seen, cursor = event_batch_after(cursor=cursor, limit=100)
    assert [e.source_id for e in seen] == ["minted-first", "committed-first"]
    assert event_batch_after(cursor=cursor, limit=100) == ([], cursor)


def test_events_behind_a_cursor_are_all_final() -> None:
    event_append_many(source="late", events=[{"source_id": "a"}])
    seen, cursor = event_batch_after(cursor=None, limit=100)
    assert [e.source_id for e in seen] == ["a"]
    with _held_open([{"source_id": "b"}]):
        event_append_many(source="late", events=[{"source_id": "c"}])
        assert event_batch_after(cursor=cursor, limit=100) == ([], cursor)
    seen, cursor = event_batch_after(cursor=cursor, limit=100)
    assert [e.source_id for e in seen] == ["b", "c"]


def _read_once_this_database_is_quiet() -> list[str]:
    """The first batch's source ids, read again for up to 10 s while it is empty: the
    horizon rightly waits for any transaction of this database (autovacuum's ANALYZE, a
    Celery worker of another test), and only another database's transactions are the
    subject of these tests. A horizon that waits for them fails after 10 s."""
    deadline = time.monotonic() + 10
    while True:
        seen = [e.source_id for e in event_batch_after(cursor=None, limit=10)[0]]
        if seen or time.monotonic() > deadline:
            return seen
        time.sleep(0.05)


def test_a_transaction_in_another_database_does_not_hold_readers_back() -> None:
    params = connection.get_connection_params()
    params["dbname"] = "postgres"
    with psycopg.connect(**params) as other:
        other.execute("SELECT pg_current_xact_id()")  # holds a transaction id, never commits
        event_append_many(source="late", events=[{"source_id": "visible"}])
        assert _read_once_this_database_is_quiet() == ["visible"]
        other.rollback()


def test_a_subtransaction_in_another_database_does_not_hide_the_reader_s_own_rows() -> None:
    params = connection.get_connection_params()
    params["dbname"] = "postgres"
    with psycopg.connect(**params) as other:
        other.execute("CREATE TEMP TABLE scratch (x int)")  # a top-level transaction id
        other.execute("SAVEPOINT inner_write")
        other.execute("INSERT INTO scratch VALUES (1)")  # and a subtransaction id
        with transaction.atomic():
            event_append_many(source="late", events=[{"source_id": "mine"}])
            assert _read_once_this_database_is_quiet() == ["mine"]
        other.rollback()
