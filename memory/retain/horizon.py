"""The Retain Job's canonical order and how far it may go.

Observations are retained in the order of their order key: the commit position (txid, id)
of the latest raw event they derive from, then their dedup key. Both are stable when the
raw log is replayed, so a rebuild retains in the same order as the incremental path did.

An observation may only be retained once no observation that sorts before it can still
appear. Producers of observations (insight's analyzers) know how far they have read the
log: they register a horizon provider returning the position (txid, event id) of the
first event some analyzer has not read yet (None: no limit). Observations at or beyond
the smallest such position wait; memory never imports the producers.
"""

from __future__ import annotations

from collections.abc import Callable

Position = tuple[int, str]
HorizonProvider = Callable[[], Position | None]
NO_EVENTS_TXID = 0

_providers: dict[str, HorizonProvider] = {}


def retain_horizon_register(name: str, provider: HorizonProvider) -> None:
    _providers[name] = provider


def retain_horizon_unregister(name: str) -> None:
    _providers.pop(name, None)


def position_key(position: Position) -> str:
    txid, event_id = position
    return f"{txid:020d}:{event_id}"


def order_key_sql(*, event_ids: str, timestamp: str, dedup_key: str) -> str:
    """The SQL expression of an observation's order key, from the SQL expressions of its
    event ids (text[]), its timestamp and its dedup key: `position_key` of its latest event,
    else (no event in the log) its UTC timestamp after a zero txid, then its dedup key.
    Stored with the observation when it is inserted, and by the Retain Job for rows stored
    without one."""
    return (
        "COALESCE((SELECT lpad(e.txid::text, 20, '0') || ':' || e.id "
        f"FROM memory_memoryevent AS e WHERE e.id = ANY({event_ids}) "
        "ORDER BY e.txid DESC, e.id DESC LIMIT 1), "
        f"lpad('{NO_EVENTS_TXID}', 20, '0') || ':' || "
        f"""to_char(({timestamp}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')) """
        f"|| ':' || {dedup_key}"
    )


def retain_horizon() -> str | None:
    """The order-key prefix observations must sort below to be retained (None: no limit)."""
    positions = [p for p in (provider() for provider in _providers.values()) if p is not None]
    return position_key(min(positions)) if positions else None
