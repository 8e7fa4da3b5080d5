"""How an event's payload is stored: its JSON text, lz4-compressed when that pays, behind one
header byte. Pure (no Django).

The embedded PostgreSQL is built without lz4, and its pglz took ~30% of the server's time on
ingestion, with the jsonb parse of each payload another ~25%: a 300 MB slice of the generated
corpus costs the server 6.7 s of CPU as jsonb (pglz) and 0.4 s as lz4 bytes, which Python
writes at ~500 MB/s and reads at ~1 GB/s, for a smaller table (bench/first_import.py).

The header's bit 0 says lz4 (a block with its size stored); bit 1 says the text must be read
with `json.loads`: it may hold an integer beyond 64 bits, which orjson would read as a float
(JSON written by `json.dumps`, and rows converted from jsonb by migration 0027).
"""

from __future__ import annotations

import json
from typing import Any

import lz4.block
import orjson

LZ4 = 0x01
STDLIB = 0x02
# Below this a payload is stored as it is: lz4 saves nothing on a few dozen bytes.
MIN_COMPRESSED_BYTES = 128


def payload_pack(data: bytes, *, exact_with_orjson: bool = True) -> bytes:
    """A JSON text (UTF-8) as stored. `exact_with_orjson`: orjson reads it back exactly (it
    wrote it)."""
    flags = 0 if exact_with_orjson else STDLIB
    if len(data) >= MIN_COMPRESSED_BYTES:
        packed: bytes = lz4.block.compress(data, store_size=True)
        if len(packed) < len(data):
            return bytes((flags | LZ4,)) + packed
    return bytes((flags,)) + data


def json_dump(value: Any) -> tuple[bytes, bool]:
    """A JSON value's text, and whether orjson wrote it (then orjson reads it back exactly);
    else `json.dumps`'s (an integer beyond 64 bits, a type JSON does not have)."""
    try:
        return orjson.dumps(value), True
    except TypeError:
        return json.dumps(value, default=str, ensure_ascii=False).encode(), False


def payload_dumps(value: Any) -> bytes:
    """A JSON value as stored."""
    text, by_orjson = json_dump(value)
    return payload_pack(text, exact_with_orjson=by_orjson)


def payload_text(stored: bytes | memoryview) -> bytes:
    """The JSON text of a stored payload."""
    if stored[0] & LZ4:
        return lz4.block.decompress(stored[1:])  # type: ignore[no-any-return]
    return bytes(stored[1:])


def payload_loads(stored: bytes | memoryview) -> Any:
    """The value of a stored payload."""
    text = payload_text(stored)
    if stored[0] & STDLIB:
        return json.loads(text)
    return orjson.loads(text)
