"""Every stored Observation is published on <prefix>.memory.observations.publish, on a
JetStream stream, from the outbox: in the order it was stored, once, caught up by a durable
consumer that was down, and published after an outage of NATS (docs/nats.md)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.db import connection, transaction

from memory.config import DecayConfig
from memory.models import Observation, ObservationOutbox
from memory.nats.publisher import observation_publisher
from memory.services.outbox import outbox_drain
from memory.tasks.outbox import outbox_drain_task
from tests.nats.conftest import (
    Bus,
    PrivateNats,
    bus_for,
    consume,
    free_port,
    run,
    store,
    stream_delete,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _drain() -> dict[str, Any]:
    result = outbox_drain_task.apply().get()
    assert isinstance(result, dict)
    return result


def test_each_observation_is_published_once_in_the_order_it_was_stored(
        bus: Bus, queued: list[str]) -> None:
    first = store("one", "two", "three")
    second = store("four")
    assert queued == ["memory.outbox_drain", "memory.outbox_drain"]  # one per commit
    assert list(ObservationOutbox.objects.order_by("id").values_list(
        "observation_id", flat=True)) == first + second
    assert _drain()["published"] == 4
    third = store("five", "six")
    assert _drain()["published"] == 2
    assert _drain()["published"] == 0  # idempotent: nothing left, nothing sent twice

    got = run(consume(bus, "order", 6))
    expected = first + second + third
    assert [msg_id for msg_id, _body in got] == expected
    assert [body["id"] for _msg_id, body in got] == expected
    assert [body["payload_typed"]["text"] for _msg_id, body in got] == [
        "one", "two", "three", "four", "five", "six"]
    stored = Observation.objects.get(id=expected[0])
    assert got[0][1]["category"] == "fact" and got[0][1]["source"] == "test:nats"
    assert got[0][1]["timestamp"] == stored.timestamp.isoformat()
    assert not ObservationOutbox.objects.exists()


def test_batches_smaller_than_the_outbox_keep_the_order(
        nats_url: str, config: DecayConfig, swap_config: Callable[[DecayConfig], DecayConfig],
        settings: Any, queued: list[str]) -> None:
    bus = bus_for(nats_url, config, swap_config, settings, drain_batch=2,
                  drain_batches_per_task=2)
    try:
        ids = store("a", "b", "c") + store("d", "e")
        with observation_publisher() as publish:
            report = outbox_drain(publish=publish)
        assert (report.published, report.more) == (4, True)  # two batches of two, one left
        assert _drain()["published"] == 1
        assert [msg_id for msg_id, _ in run(consume(bus, "small", 5))] == ids
    finally:
        run(stream_delete(bus.url, bus.section.stream))


def test_a_transaction_that_commits_late_holds_back_what_was_stored_after_it(
        bus: Bus, queued: list[str]) -> None:
    """Rows are published in (transaction, row) order below the commit horizon: a row is
    never published before one that an earlier, still open, transaction wrote."""
    wrote, commit = threading.Event(), threading.Event()
    early: list[str] = []

    def slow_writer() -> None:
        try:
            with transaction.atomic():
                early.extend(store("early"))
                wrote.set()
                commit.wait(10)
        finally:
            connection.close()

    writer = threading.Thread(target=slow_writer)
    writer.start()
    assert wrote.wait(10)
    late = store("late")
    assert _drain()["published"] == 0  # "late" waits behind the open transaction
    commit.set()
    writer.join(10)
    assert _drain()["published"] == 2
    assert [msg_id for msg_id, _ in run(consume(bus, "late", 2))] == early + late


def test_a_durable_consumer_that_was_down_catches_up(bus: Bus, queued: list[str]) -> None:
    before = store("b1", "b2")
    _drain()
    assert [msg_id for msg_id, _ in run(consume(bus, "worker", 2))] == before
    # The consumer is down (its connection closed); more observations are published.
    while_down = store("d1") + store("d2", "d3")
    _drain()
    # Back with the same durable name: exactly what it missed, in order, nothing again.
    assert [msg_id for msg_id, _ in run(consume(bus, "worker", 3))] == while_down
    # A consumer created later reads the stream from its start.
    assert [msg_id for msg_id, _ in run(consume(bus, "newcomer", 5))] == before + while_down


def test_an_observation_stored_while_nats_is_down_is_published_when_it_is_back(
        tmp_path: Path, config: DecayConfig,
        swap_config: Callable[[DecayConfig], DecayConfig], settings: Any,
        queued: list[str]) -> None:
    server = PrivateNats(tmp_path / "store")
    server.start()
    bus = bus_for(server.url, config, swap_config, settings, connect_timeout_seconds=0.5)
    try:
        before = store("before the outage")
        assert _drain()["published"] == 1
        server.stop()

        during = store("during the outage")  # the write neither waits for NATS nor fails
        assert Observation.objects.filter(id__in=during).count() == 1
        with observation_publisher() as publish:
            report = outbox_drain(publish=publish)
        assert (report.published, report.failed) == (0, True)
        assert list(ObservationOutbox.objects.values_list("observation_id", flat=True)) == during

        server.start()
        assert _drain()["published"] == 1
        assert not ObservationOutbox.objects.exists()
        assert [msg_id for msg_id, _ in run(consume(bus, "outage", 2))] == before + during
    finally:
        server.stop()


def test_a_closed_port_leaves_the_rows_in_the_outbox(
        bus: Bus, config: DecayConfig, settings: Any, queued: list[str]) -> None:
    settings.NATS_URL = f"nats://127.0.0.1:{free_port()}"
    ids = store("nobody listens")
    with observation_publisher() as publish:
        assert outbox_drain(publish=publish).failed
    settings.NATS_URL = bus.url
    assert _drain()["published"] == 1
    assert [msg_id for msg_id, _ in run(consume(bus, "closed", 1))] == ids


def test_nothing_is_kept_for_nats_when_it_is_off(settings: Any, queued: list[str]) -> None:
    settings.NATS_URL = ""
    store("no bus")
    assert not ObservationOutbox.objects.exists() and queued == []
    assert _drain() == {"published": 0}
