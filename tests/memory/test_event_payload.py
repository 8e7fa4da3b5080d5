"""Event payloads are stored as their JSON text behind a header byte, lz4-compressed when that
pays (memory.event_payload), and read back exactly, by COPY (a batch) and by INSERT (one)."""

from __future__ import annotations

import json
from typing import Any

import lz4.block
import orjson
import pytest
from django.db import connection

from memory.event_payload import payload_loads
from memory.models.events import MemoryEvent
from memory.services.events import event_append, event_append_many

pytestmark = pytest.mark.django_db

LONG = {"message": {"content": [{"type": "text", "text": "the same words again " * 40}]}}


def _stored(source_id: str) -> bytes:
    with connection.cursor() as cursor:
        cursor.execute("SELECT payload FROM memory_memoryevent WHERE source_id = %s",
                       [source_id])
        return bytes(cursor.fetchone()[0])


@pytest.mark.parametrize("batch", [True, False], ids=["copy", "insert"])
def test_a_long_payload_is_stored_as_lz4_of_its_json_and_read_back(batch: bool) -> None:
    events: list[dict[str, Any]] = [{"source_id": "long", "payload": LONG},
                                    {"source_id": "other"}]
    if batch:
        event_append_many(source="test", events=events)
    else:
        event_append(source="test", event=events[0])
    stored = _stored("long")
    text = orjson.dumps(LONG)
    assert stored[0] == 0x01
    assert lz4.block.decompress(stored[1:]) == text  # the codec's format, read without it
    assert len(stored) < len(text) / 4
    assert MemoryEvent.objects.get(source_id="long").payload == LONG


def test_a_short_payload_is_stored_as_its_json() -> None:
    event_append_many(source="test", events=[{"source_id": "a", "payload": {"k": "v"}},
                                              {"source_id": "b"}])
    assert _stored("a") == b'\x00{"k":"v"}'
    assert _stored("b") == b"\x00{}"


def test_an_integer_beyond_64_bits_reads_back_exactly() -> None:
    big = 123456789012345678901234567890
    event_append_many(source="test", events=[{"source_id": "big", "payload": {"n": big}},
                                              {"source_id": "small", "payload": {"n": 1}}])
    assert _stored("big")[0] & 0x02  # to be read by json.loads: orjson would give a float
    assert MemoryEvent.objects.get(source_id="big").payload == {"n": big}
    assert isinstance(MemoryEvent.objects.get(source_id="big").payload["n"], int)


def test_rows_converted_from_jsonb_read_back_as_they_were() -> None:
    # What migration 0027 writes for a row stored before it: jsonb's text behind header 0x02.
    document = '{"n": 123456789012345678901234567890, "x": 1.5, "s": "caf\\u00e9"}'
    with connection.cursor() as cursor:
        cursor.execute("SELECT '\\x02'::bytea || convert_to(%s::jsonb::text, 'UTF8')",
                       [document])
        converted = bytes(cursor.fetchone()[0])
    assert payload_loads(converted) == json.loads(document)
