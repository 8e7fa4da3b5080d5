"""Streaming lines and tolerant parsing: every malformed kind is named, none raises."""

from __future__ import annotations

import io
import json

from insight.producers.jsonl import parse_line, raw_lines


def _lines(data: bytes, **kwargs: int) -> list[tuple[int, int, bytes, bool]]:
    return [(x.start, x.end, x.data, x.terminated) for x in raw_lines(io.BytesIO(data), **kwargs)]


def test_lines_carry_their_offsets_and_the_torn_tail_is_flagged() -> None:
    data = b'{"a":1}\n\n{"b":2}\n{"c":'
    assert _lines(data, start=0) == [
        (0, 8, b'{"a":1}', True), (8, 9, b"", True), (9, 17, b'{"b":2}', True),
        (17, 22, b'{"c":', False),
    ]


def test_reading_resumes_at_an_offset_and_lines_span_chunks() -> None:
    data = b'{"a":1}\n' + b'{"long":"' + b"x" * 5000 + b'"}\n'
    lines = _lines(data, start=8, chunk_bytes=64)
    assert len(lines) == 1 and lines[0][0] == 8 and lines[0][1] == len(data)
    assert json.loads(lines[0][2])["long"] == "x" * 5000


def test_a_limit_stops_at_a_line_boundary() -> None:
    data = b"".join(b'{"n":%d}\n' % i for i in range(10))
    lines = _lines(data, start=0, limit=20)
    assert [json.loads(x[2])["n"] for x in lines] == [0, 1, 2]


def test_an_object_parses() -> None:
    parsed = parse_line(b'{"type":"user","uuid":"u1"}')
    assert [r for r, _ in parsed.records] == [{"type": "user", "uuid": "u1"}]
    assert parsed.problems == []


def test_empty_and_non_object_lines_are_named() -> None:
    assert parse_line(b"").problems == ["empty_line"]
    assert parse_line(b"   \r").problems == ["empty_line"]
    for data in (b"42", b"[1]", b'"massive error"', b"null"):
        parsed = parse_line(data)
        assert parsed.records == [] and parsed.problems == ["non_object"]


def test_glued_records_are_split() -> None:
    parsed = parse_line(b'{"uuid":"a","t":"}{"}{"uuid":"b"}')
    assert [r["uuid"] for r, _ in parsed.records] == ["a", "b"]
    assert parsed.problems == ["glued"]
    assert [raw for _, raw in parsed.records] == [b'{"uuid":"a","t":"}{"}', b'{"uuid":"b"}']


def test_a_broken_stub_glued_to_a_record_loses_only_the_stub() -> None:
    parsed = parse_line(b'{"type":"assistant","message":{"id":1}{"uuid":"b","type":"user"}')
    assert [r["uuid"] for r, _ in parsed.records] == ["b"]
    assert sorted(parsed.problems) == ["glued", "unparseable"]


def test_invalid_utf8_is_replaced_and_counted() -> None:
    parsed = parse_line(b'{"text":"caf\xe9 \xff"}')
    assert parsed.records[0][0]["text"] == "caf\ufffd \ufffd"
    assert parsed.problems == ["invalid_utf8"]


def test_lone_surrogates_and_huge_ints_still_parse() -> None:
    parsed = parse_line(b'{"s":"\\ud800","n":123456789012345678901234567890}')
    assert parsed.records[0][0]["s"] == "\ud800" and parsed.problems == []


def test_garbage_and_non_json_constants_are_unparseable() -> None:
    assert parse_line(b'{"type": "user", "mess').problems == ["unparseable"]
    assert parse_line(b'{"x": NaN}').problems == ["unparseable"]


def test_a_line_of_one_and_a_half_megabytes_parses() -> None:
    big = b'{"uuid":"big","data":"' + b"A" * 1_500_000 + b'"}'
    parsed = parse_line(big)
    assert len(parsed.records[0][0]["data"]) == 1_500_000
