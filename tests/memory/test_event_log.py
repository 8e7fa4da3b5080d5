"""Layer 1's log: immutable by the ORM and by SQL, idempotent, sanitized, few statements."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection, transaction
from django.db.utils import DatabaseError
from django.test.utils import CaptureQueriesContext

from memory.errors import Invalid, TooLarge
from memory.models.events import EventImmutableError, MemoryEvent
from memory.selectors.events import event_batch_after
from memory.services.events import event_append_many

pytestmark = pytest.mark.django_db

GITHUB_PAT = "ghp_" + "a1B2" * 9


def _one(source_id: str = "e1", **fields: object) -> MemoryEvent:
    event_append_many(source="test", events=[{"source_id": source_id, **fields}])
    return MemoryEvent.objects.get(source="test", source_id=source_id)


def test_the_orm_refuses_to_change_a_stored_event() -> None:
    event = _one()
    event.type = "changed"
    with pytest.raises(EventImmutableError):
        event.save()
    with pytest.raises(EventImmutableError):
        event.delete()
    with pytest.raises(EventImmutableError):
        MemoryEvent.objects.filter(pk=event.pk).update(type="changed")
    with pytest.raises(EventImmutableError):
        MemoryEvent.objects.filter(pk=event.pk).delete()
    with pytest.raises(EventImmutableError):
        MemoryEvent.objects.bulk_update([event], ["type"])
    assert MemoryEvent.objects.get(pk=event.pk).type == ""


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE memory_memoryevent SET type = 'changed'",
        "DELETE FROM memory_memoryevent",
        "TRUNCATE memory_memoryevent CASCADE",
    ],
)
def test_the_database_refuses_update_delete_and_truncate(sql: str) -> None:
    _one()
    with (
        pytest.raises(DatabaseError, match="pgtrigger"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)
    assert MemoryEvent.objects.filter(source="test", type="").count() == 1


def test_the_commit_position_is_the_database_s_not_the_client_s() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO memory_memoryevent (id, source, source_id, occurred_at, recorded_at,"
            " type, subtype, actor, project, correlation_session, correlation_thread,"
            " correlation_parent, payload, redaction_count, txid)"
            " VALUES ('01J0000000000000000000000X', 's', 'x', now(), now(), '', '', '', '', '',"
            " '', '', '\\x007b7d', 0, 1)"  # the payload {} as stored (header 0x00)
        )
        cursor.execute("SELECT pg_current_xact_id()::text::bigint")
        (own,) = cursor.fetchone()
    assert MemoryEvent.objects.get(source_id="x").txid == own


def test_a_batch_copied_in_carries_its_transaction_s_id() -> None:
    with transaction.atomic():
        event_append_many(source="test", events=[{"source_id": "c1"}, {"source_id": "c2"}])
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_current_xact_id()::text::bigint")
            (own,) = cursor.fetchone()
    assert set(MemoryEvent.objects.values_list("txid", flat=True)) == {own}


def test_a_repeat_answers_the_stored_id_and_stores_nothing_new() -> None:
    first = event_append_many(source="test", events=[{"source_id": "a", "type": "one"}])
    again = event_append_many(
        source="test", events=[{"source_id": "a", "type": "two"}, {"source_id": "b"}]
    )
    assert first[0].created and not again[0].created
    assert again[0].id == first[0].id
    assert again[1].created
    assert MemoryEvent.objects.get(source_id="a").type == "one"
    assert MemoryEvent.objects.count() == 2


def test_the_same_source_id_under_another_source_is_another_event() -> None:
    a = event_append_many(source="api:a", events=[{"source_id": "1"}])[0]
    b = event_append_many(source="api:b", events=[{"source_id": "1"}])[0]
    assert a.created and b.created and a.id != b.id


def test_a_repeat_inside_one_batch_is_stored_once() -> None:
    results = event_append_many(
        source="test", events=[{"source_id": "a"}, {"source_id": "b"}, {"source_id": "a"}]
    )
    assert [r.created for r in results] == [True, True, False]
    assert results[0].id == results[2].id
    assert MemoryEvent.objects.count() == 2


def test_every_field_is_stored_and_sanitized() -> None:
    event = _one(
        type="claude-code",
        subtype="assistant.tool_use",
        occurred_at="2026-03-01T10:00:00Z",
        actor=f"bot {GITHUB_PAT}",
        project="cortex",
        correlation={"session": "s1", "thread": "t\x00", "parent": "p"},
        payload={"cmd": f"git push https://x:{GITHUB_PAT}@github.com", GITHUB_PAT: "\ud800"},
    )
    assert event.occurred_at == datetime(2026, 3, 1, 10, tzinfo=UTC)
    assert event.actor == "bot [REDACTED:github-pat]"
    assert event.correlation == {"session": "s1", "thread": "t", "parent": "p"}
    assert event.payload == {
        "cmd": "git push https://x:[REDACTED:github-pat]@github.com",
        "[REDACTED:github-pat]": "\ufffd",
    }
    assert event.redaction_count == 3
    assert GITHUB_PAT not in str(MemoryEvent.objects.filter(pk=event.pk).values().get())


def test_a_batch_of_1000_is_a_handful_of_statements() -> None:
    event_append_many(source="test", events=[{"source_id": f"old-{i}"} for i in range(10)])
    batch = [{"source_id": f"new-{i}", "payload": {"i": i}} for i in range(990)]
    batch += [{"source_id": f"old-{i}"} for i in range(10)]
    with CaptureQueriesContext(connection) as queries:
        results = event_append_many(source="test", events=batch)
    # the COPY's savepoint, its rollback (a repeat refused it); the INSERT's savepoint, the
    # insert, the repeats read back, release
    assert len(queries) <= 6
    assert sum(r.created for r in results) == 990
    assert MemoryEvent.objects.count() == 1000
    fresh = [{"source_id": f"fresh-{i}", "payload": {"i": i}} for i in range(1000)]
    with CaptureQueriesContext(connection) as queries:
        results = event_append_many(source="test", events=fresh)
    assert len(queries) <= 3  # savepoint, (the COPY), release
    assert all(r.created for r in results)
    assert MemoryEvent.objects.filter(source_id__startswith="fresh-").count() == 1000


@pytest.mark.parametrize(
    ("event", "field"),
    [
        ({}, "source_id"),
        ({"source_id": ""}, "source_id"),
        ({"source_id": 12}, "source_id"),
        ({"source_id": "x" * 513}, "source_id"),
        ({"source_id": "a", "type": ["x"]}, "type"),
        ({"source_id": "a", "occurred_at": "yesterday"}, "occurred_at"),
        ({"source_id": "a", "occurred_at": 1700000000}, "occurred_at"),
        ({"source_id": "a", "occurred_at": "0001-01-01T00:00:00+14:00"}, "occurred_at"),
        ({"source_id": "a", "occurred_at": "9999-12-31T23:59:59-14:00"}, "occurred_at"),
        ({"source_id": "a", "correlation": "s1"}, "correlation"),
        ({"source_id": "a", "correlation": {"session": 1}}, "correlation"),
        ({"source_id": "a", "correlation": {"other": "x"}}, "correlation"),
        ({"source_id": "a", "payload": [1, 2]}, "payload"),
        ({"source_id": "a", "id": "01J0000000000000000000000X"}, "id"),
        ({"source_id": "a", "recorded_at": "2026-01-01T00:00:00Z"}, "recorded_at"),
        ({"source_id": "a", "source": "api:someone-else"}, "source"),
        ({"source_id": "a", "colour": "blue"}, "colour"),
    ],
)
def test_a_bad_event_rejects_the_whole_batch(event: dict[str, object], field: str) -> None:
    with pytest.raises(Invalid) as rejected:
        event_append_many(source="test", events=[{"source_id": "good"}, event])
    assert field in rejected.value.fields["events"]["1"]
    assert MemoryEvent.objects.count() == 0


def test_a_payload_over_the_limit_is_refused(settings: object) -> None:
    settings.CORTEX_MAX_PAYLOAD_BYTES = 1000  # type: ignore[attr-defined]
    with pytest.raises(TooLarge):
        event_append_many(source="test", events=[{"source_id": "a", "payload": {"x": "y" * 2000}}])
    assert MemoryEvent.objects.count() == 0


def test_a_batch_over_1000_is_refused() -> None:
    with pytest.raises(Invalid) as rejected:
        event_append_many(source="test", events=[{"source_id": str(i)} for i in range(1001)])
    assert "events" in rejected.value.fields
    assert MemoryEvent.objects.count() == 0


def test_a_reader_sees_the_events_of_its_own_transaction_in_order() -> None:
    event_append_many(source="a", events=[{"source_id": str(i)} for i in range(5)])
    event_append_many(source="b", events=[{"source_id": "x"}])
    events, cursor = event_batch_after(cursor=None, limit=3)
    assert [e.source_id for e in events] == ["0", "1", "2"]
    events, cursor = event_batch_after(cursor=cursor, limit=10)
    assert [e.source_id for e in events] == ["3", "4", "x"]
    assert event_batch_after(cursor=cursor, limit=10) == ([], cursor)
    only_b, _ = event_batch_after(cursor=None, limit=10, source="b")
    assert [e.source_id for e in only_b] == ["x"]
