"""Event ids: ULIDs (48-bit millisecond time, 80 random bits), minted many at a time.

One generator per process, monotonic: within a millisecond (or if the clock steps back) each
id is the previous one plus one, so ids never repeat and sort in minting order. A batch costs
one random draw, and each id a string concatenation: the last two base32 digits (ten bits)
come from a table, the 24 before them are shared by up to 1,024 consecutive ids (python-ulid's
ULID() takes ~4 us each, a noticeable share of ingestion).
"""

from __future__ import annotations

import os
import threading
import time

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base32
_LAST_TWO = [high + low for high in _ALPHABET for low in _ALPHABET]  # index: the low ten bits
_lock = threading.Lock()
_last = 0


def _reserve(count: int) -> int:
    global _last
    with _lock:
        first = (time.time_ns() // 1_000_000) << 80 | int.from_bytes(os.urandom(10), "big")
        first = max(first, _last + 1)
        _last = first + count - 1
    return first


def _encode(value: int) -> str:
    digits = []
    for _ in range(26):
        value, digit = divmod(value, 32)
        digits.append(_ALPHABET[digit])
    return "".join(reversed(digits))


def new_event_ids(count: int) -> list[str]:
    """`count` new ids, ascending."""
    ids: list[str] = []
    value = _reserve(count) if count > 0 else 0
    end = value + max(count, 0)
    while value < end:
        block_end = min(end, (value | 1023) + 1)
        head = _encode(value)[:24]
        ids += [head + _LAST_TWO[low] for low in range(value & 1023, (block_end - 1 & 1023) + 1)]
        value = block_end
    return ids
