"""Outside a transaction the sink writes in a thread of its own while the producer reads on:
the same events and read positions as writing inline, errors raised to the producer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from insight.models import SourceFile
from insight.producers.base import IngestSummary
from insight.producers.sink import EventSink
from memory.models.events import MemoryEvent

from .helpers import SESSION, append, ingest, line, record, write

pytestmark = pytest.mark.django_db(transaction=True)


def _events(count: int, *, prefix: str = "e") -> list[dict[str, Any]]:
    return [{"source_id": f"{prefix}{index}", "type": "t", "payload": {"n": index}}
            for index in range(count)]


def test_a_pipelined_ingest_stores_what_an_inline_one_does(tmp_path: Path) -> None:
    assert not connection.in_atomic_block
    path = tmp_path / "p" / f"{SESSION}.jsonl"
    write(path, *(record(f"u{index}", text=f"line {index}") for index in range(2500)))
    first = ingest("claude-code", str(tmp_path))
    assert first["events_stored"] == 2500 and first["duplicates"] == 0
    append(path, line(record("u-last")))
    second = ingest("claude-code", str(tmp_path))
    assert second["events_stored"] == 1 and second["lines"] == 1
    assert MemoryEvent.objects.filter(source="claude-code").count() == 2501
    assert SourceFile.objects.get(path=str(path)).offset == path.stat().st_size


def test_each_batch_commits_the_marks_as_they_were_when_it_was_handed_over() -> None:
    # The marks of a transaction cover exactly the events stored with it, however the
    # writer groups the batches waiting for it.
    saved: list[tuple[int, int]] = []

    def commit_marks(marks: list[Any]) -> None:
        stored = MemoryEvent.objects.filter(source="test").count()  # in the same transaction
        saved.append((marks[0]["offset"], stored))

    summary = IngestSummary(source="test")
    with EventSink(source="test", summary=summary, batch_size=10,
                   commit_marks=commit_marks) as sink:
        position = {"offset": 0}
        for index in range(95):
            position["offset"] = index + 1
            sink.mark("file", position)  # the producer's live object, changed after each add
            sink.add(_events(1, prefix=f"m{index}-"))
        sink.flush()
    assert all(offset == stored for offset, stored in saved)
    assert saved[-1] == (95, 95)
    assert summary.events_stored == 95


def test_an_error_while_writing_reaches_the_producer_and_stops_the_writing() -> None:
    def fail(marks: list[Any]) -> None:
        raise RuntimeError("disk full")

    summary = IngestSummary(source="test")
    with (pytest.raises(RuntimeError, match="disk full"),  # noqa: PT012 - from a later add
          EventSink(source="test", summary=summary, batch_size=10, commit_marks=fail) as sink):
        for index in range(100):
            sink.mark("file", index)
            sink.add(_events(1, prefix=f"x{index}-"))
        sink.flush()
    assert MemoryEvent.objects.filter(source="test").count() == 0  # its transaction rolled back
    assert summary.events_stored == 0


def test_inside_a_transaction_the_batches_are_written_in_it() -> None:
    from django.db import transaction

    summary = IngestSummary(source="test")
    with transaction.atomic():
        with EventSink(source="test", summary=summary, batch_size=10) as sink:
            for event in _events(25):
                sink.add([event])
            assert MemoryEvent.objects.filter(source="test").count() == 20  # same connection
            sink.flush()
        transaction.set_rollback(True)
    assert MemoryEvent.objects.filter(source="test").count() == 0


def test_the_collector_settings_come_back_after_the_run() -> None:
    import gc

    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    summary = IngestSummary(source="test")
    with EventSink(source="test", summary=summary) as outer:
        with EventSink(source="test", summary=summary) as inner:
            assert gc.get_threshold()[0] > before[0]
            inner.add(_events(3, prefix="g"))
            inner.flush()
        assert gc.get_threshold()[0] > before[0]  # the outer sink still runs
        outer.flush()
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == frozen
