"""The quick check of a well-formed event (one pass over its fields) agrees with the full one
that names every problem, whatever the event."""

from __future__ import annotations

import pickle
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memory import clock
from memory.services.event_input import _checked_row, event_row_parse

_ODD_TEXT = st.one_of(st.none(), st.text(max_size=5), st.text(min_size=254, max_size=257),
                      st.just(" "), st.integers(), st.lists(st.text(max_size=2), max_size=1))


@st.composite
def _odd_events(draw: st.DrawFn) -> dict[Any, object]:
    event: dict[Any, object] = {}
    for name in ("source_id", "type", "subtype", "actor", "project"):
        if draw(st.booleans()):
            event[name] = draw(_ODD_TEXT)
    if draw(st.booleans()):
        event["correlation"] = draw(st.one_of(
            st.none(), st.text(max_size=3),
            st.dictionaries(st.sampled_from(["session", "thread", "parent", "other"]), _ODD_TEXT,
                            max_size=4)))
    if draw(st.booleans()):
        event["payload"] = draw(st.one_of(st.none(), st.integers(),
                                          st.dictionaries(st.text(max_size=3), _ODD_TEXT)))
    if draw(st.booleans()):
        event["occurred_at"] = draw(st.sampled_from(["2026-01-01T00:00:00Z", "nope", None, 3]))
    if draw(st.booleans()):
        event[draw(st.sampled_from(["id", "txid", "extra", 7]))] = "x"
    return event


@given(_odd_events())
@settings(max_examples=1500, deadline=None)
def test_the_quick_check_of_a_well_formed_event_agrees_with_the_full_one(
    event: dict[Any, object],
) -> None:
    with clock.frozen(datetime(2026, 1, 2, tzinfo=UTC)):
        assert event_row_parse(event, max_payload_bytes=10_000) == _checked_row(
            event, max_payload_bytes=10_000)


def test_a_row_survives_the_trip_to_the_importer_whole() -> None:
    """Reader processes pickle their prepared rows (EventRow.__reduce__)."""
    row, errors, _ = event_row_parse(
        {"source_id": "s", "type": "t", "actor": "a", "occurred_at": "2026-01-02T03:04:05Z",
         "correlation": {"session": "x"}, "payload": {"k": [1, "two"]}},
        max_payload_bytes=1000)
    assert row is not None and not errors
    again = pickle.loads(pickle.dumps(row))
    assert again == row and again is not row
    assert again.payload_stored == row.payload_stored and again.correlation_session == "x"
