"""event_batch_after: payloads decoded as Django would, the lean view, settings left as found."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from memory.models.events import MemoryEvent
from memory.selectors.events import event_batch_after
from memory.services.events import event_append_many

pytestmark = pytest.mark.django_db

PAYLOADS = [
    {"toolUseResult": {"stdout": "a" * 100, "stderr": ""}, "message": {"content": "x"}},
    {"toolUseResult": "Error: exit 1", "message": {"content": "y"}},
    {"n": [2**70, -(2**70), 1.5, 1e300, None, True], "s": "é\u2028"},
    {},
]


def _store() -> None:
    event_append_many(source="test", events=[
        {"source_id": f"e{index}", "payload": payload} for index, payload in enumerate(PAYLOADS)
    ])


def test_payloads_come_back_as_the_orm_reads_them() -> None:
    _store()
    events, _ = event_batch_after(cursor=None, limit=10, source="test")
    by_orm = {e.source_id: e.payload for e in MemoryEvent.objects.filter(source="test")}
    assert {e.source_id: e.payload for e in events} == by_orm
    assert events[2].payload["n"][0] == 2**70


def test_the_lean_view_leaves_out_only_tool_output_objects() -> None:
    _store()
    lean, _ = event_batch_after(cursor=None, limit=10, source="test", lean=True)
    full, _ = event_batch_after(cursor=None, limit=10, source="test")
    assert lean[0].payload == {"message": {"content": "x"}}
    assert lean[1].payload == full[1].payload and lean[3].payload == full[3].payload
    assert lean[2].payload["s"] == full[2].payload["s"]
    assert [(e.id, e.occurred_at, e.recorded_at) for e in lean] == [
        (e.id, e.occurred_at, e.recorded_at) for e in full]


def test_the_planner_setting_is_put_back_inside_the_caller_s_transaction() -> None:
    _store()
    with transaction.atomic(), connection.cursor() as cursor:
        event_batch_after(cursor=None, limit=2, source="test")
        cursor.execute("SHOW enable_sort")
        assert cursor.fetchone()[0] == "on"
