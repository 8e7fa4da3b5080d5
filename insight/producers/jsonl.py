"""Streaming JSONL: complete lines from a byte offset, and tolerant parsing of one line.

Reads in binary chunks, so memory stays at one chunk plus the longest line whatever
the file size. A last line without its newline is handed out with `terminated=False`:
the caller decides whether it is complete (it parses) or torn (wait for the next run).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import orjson

CHUNK_BYTES = 1 << 20

Record = dict[str, Any]


@dataclass(slots=True)
class RawLine:
    start: int  # byte offset of the line
    end: int  # offset just after the line and its newline: where the next read starts
    data: bytes  # the line without its newline
    terminated: bool


def raw_lines(
    fh: IO[bytes], *, start: int, limit: int | None = None, chunk_bytes: int = CHUNK_BYTES
) -> Iterator[RawLine]:
    """Lines from `start` to the end of the file (or until `limit` bytes have been handed out)."""
    fh.seek(start)
    pos, buf = start, b""
    while True:
        chunk = fh.read(chunk_bytes)
        if not chunk:
            break
        buf = buf + chunk if buf else chunk
        i = 0
        while (j := buf.find(b"\n", i)) >= 0:
            if limit is not None and pos + i - start >= limit:
                return
            yield RawLine(pos + i, pos + j + 1, buf[i:j], True)
            i = j + 1
        pos, buf = pos + i, buf[i:]
    if buf and (limit is None or pos - start < limit):
        yield RawLine(pos, pos + len(buf), buf, False)


@dataclass(slots=True)
class ParsedLine:
    records: list[tuple[Record, bytes]]  # each object with the bytes it came from
    problems: list[str]  # malformed kinds seen on this line


def parse_line(data: bytes) -> ParsedLine:
    """One line to its JSON objects. Never raises: problems are named, not thrown."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return _parse_slow(data)
    if isinstance(value, dict):
        return ParsedLine([(value, data)], [])
    return ParsedLine([], ["non_object"])


def _reject_constant(name: str) -> Any:
    # NaN and Infinity are not JSON, and PostgreSQL's jsonb refuses them.
    raise ValueError(f"non-JSON constant {name}")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _parse_slow(data: bytes) -> ParsedLine:
    """Empty lines, invalid UTF-8, lone surrogates and glued `}{` records."""
    if not data.strip():
        return ParsedLine([], ["empty_line"])
    problems: list[str] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
        problems.append("invalid_utf8")
    records, fragments = _split_objects(text.strip(), problems)
    if fragments > 1:
        problems.append("glued")
    return ParsedLine(records, problems)


def _split_objects(text: str, problems: list[str]) -> tuple[list[tuple[Record, bytes]], int]:
    """Decode consecutive JSON values; after a broken stub, resume at the next `}{`."""
    records: list[tuple[Record, bytes]] = []
    pos, fragments = 0, 0
    while pos < len(text):
        fragments += 1
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except ValueError:
            problems.append("unparseable")
            glue = text.find("}{", pos)
            if glue < 0:
                break
            pos = glue + 1
            continue
        if isinstance(value, dict):
            records.append((value, text[pos:end].encode("utf-8", "surrogatepass")))
        else:
            problems.append("non_object")
        pos = end
        while pos < len(text) and text[pos] in " \t\r":
            pos += 1
    return records, fragments
