"""Observations that add up (docs/observations.md): a tally is one observation per dedup key,
to which each unit (one event's contribution, itself an observation of the same key) adds.

The first unit of a key creates the observation, checked, sanitized and queued for the
Retain Job like any other (its time, topic, actors and sentiment are the observation's from
then on). Each later unit is added to its payload by the caller's `add`, and its event to its
event ids, in the order given, unless that event is there already: a unit read twice (a
batch analyzed again, a session that grew) is counted once, and a replay that reads every
unit at once ends with the same observation as the incremental path.

The first unit of each key in a call is checked and sanitized whole, as any observation;
of the others only what is read, their event and their payload (the sum is sanitized and
checked as the observation it becomes): a session's messages are tens of thousands of units
in a first import."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson
from django.db import transaction

from memory import redaction
from memory.errors import Invalid, TooLarge
from memory.limits import OBSERVATION_BATCH, OBSERVATION_PAYLOAD_BYTES
from memory.observation_schemas import payload_errors
from memory.services.observations import (
    INVALID,
    ObservationSubmitResult,
    observation_submit_many,
    observation_unit_errors,
    observations_checked,
)
from memory.services.sql import jsonb_param, server_bound_cursor

# The total with these units' payloads counted, in their order (the total is left as it
# is): all the new units of a key at once.
Add = Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]]], dict[str, Any]]

_LOCK = """
SELECT dedup_key, id, payload_typed, event_ids FROM memory_observation
WHERE dedup_key = ANY(%s::text[]) ORDER BY dedup_key FOR UPDATE
"""

_UPDATE = """
UPDATE memory_observation AS o
SET payload_typed = v.payload, event_ids = ARRAY(SELECT jsonb_array_elements_text(v.event_ids))
FROM jsonb_to_recordset(%s::jsonb) AS v(id text, payload jsonb, event_ids jsonb)
WHERE o.id = v.id
"""


def _one_event_each(units: Sequence[Mapping[str, Any]]) -> None:
    problems = {str(index): {"event_ids": "A unit of a tally comes from exactly one event."}
                for index, unit in enumerate(units) if len(unit.get("event_ids") or ()) != 1}
    if problems:
        raise Invalid(INVALID, fields={"observations": problems})


def _first_of_each(units: Sequence[Mapping[str, Any]]) -> list[int]:
    """Each unit's first unit of the same source, category and key (itself when it has no
    key: its key is then its content, known once it is checked)."""
    seen: dict[tuple[str, str, str], int] = {}
    firsts = []
    for index, unit in enumerate(units):
        source, category, key = unit.get("source"), unit.get("category"), unit.get("dedup_key")
        if key and isinstance(source, str) and isinstance(category, str) and isinstance(key, str):
            firsts.append(seen.setdefault((source, category, key), index))
        else:
            firsts.append(index)
    return firsts


def _checked(units: Sequence[Mapping[str, Any]], first_of: list[int]) -> list[dict[str, Any]]:
    """Each first unit checked and sanitized (with its dedup key); each other unit's event
    and payload, with its first's key. Invalid (TooLarge) names every bad unit."""
    if len(units) > OBSERVATION_BATCH:
        raise Invalid(INVALID, fields={"observations": f"At most {OBSERVATION_BATCH} per batch."})
    firsts = sorted(set(first_of))
    problems: dict[str, Any] = {}
    error_type: type[Invalid] = Invalid
    try:
        clean = dict(zip(firsts, observations_checked(
            observations=[units[index] for index in firsts], check_events=False), strict=True))
    except Invalid as error:
        clean, error_type = {}, type(error)
        problems = {str(firsts[int(index)]): found
                    for index, found in error.fields["observations"].items()}
    for index, unit in enumerate(units):
        if first_of[index] != index and (found := observation_unit_errors(
                category=unit["category"], data=unit)):
            problems[str(index)] = found
    if problems:
        raise error_type(INVALID, fields={"observations": dict(
            sorted(problems.items(), key=lambda item: int(item[0])))})
    return [clean[index] if first_of[index] == index else
            {"event_ids": unit["event_ids"], "payload_typed": unit["payload_typed"],
             "dedup_key": clean[first_of[index]]["dedup_key"]}
            for index, unit in enumerate(units)]


def _by_key(units: Sequence[Mapping[str, Any]]) -> dict[str, list[int]]:
    """dedup key -> the indexes of its units, in order (the first creates it)."""
    groups: dict[str, list[int]] = {}
    for index, unit in enumerate(units):
        groups.setdefault(unit["dedup_key"], []).append(index)
    return groups


def _added(row: tuple[str, str, Any, list[str]], units: Sequence[Mapping[str, Any]],
           add: Add) -> tuple[dict[str, Any], list[str]] | None:
    """The row's payload and event ids with these units counted; None if none is new."""
    _, _, payload, event_ids = row
    counted, ids, new = set(event_ids), list(event_ids), []
    for unit in units:
        event = unit["event_ids"][0]
        if event not in counted:
            counted.add(event)
            ids.append(event)
            new.append(unit["payload_typed"])
    if not new:
        return None
    return add(payload if isinstance(payload, dict) else {}, new), ids


def _checked_total(category: str, payload: dict[str, Any]) -> dict[str, Any]:
    value, _ = redaction.sanitize_value(payload)
    if problems := payload_errors(category, value):
        raise Invalid(INVALID, fields={"payload_typed": problems})
    if len(orjson.dumps(value)) > OBSERVATION_PAYLOAD_BYTES:
        raise TooLarge(INVALID, fields={
            "payload_typed": f"Over the size limit of {OBSERVATION_PAYLOAD_BYTES} bytes."})
    return dict(value)


def observation_tally_many(*, units: Sequence[Mapping[str, Any]],
                           add: Add) -> list[ObservationSubmitResult]:
    """Count these units into their tallies, all or none (Invalid names the bad units, fields
    {"observations": {index: {field: problem}}}, as observation_submit_many does). One
    result per unit: `created` for the unit that created its observation."""
    if not units:
        return []
    _one_event_each(units)
    clean = _checked(units, _first_of_each(units))
    groups = _by_key(clean)
    with transaction.atomic():
        firsts = observation_submit_many(
            observations=[units[indexes[0]] for indexes in groups.values()], check_events=False)
        results: list[ObservationSubmitResult | None] = [None] * len(units)
        for indexes, first in zip(groups.values(), firsts, strict=True):
            results[indexes[0]] = first
            for index in indexes[1:]:
                results[index] = ObservationSubmitResult(id=first.id, created=False,
                                                         status=first.status)
        updates = []
        for key, row in _locked(list(groups)).items():
            found = _added(row, [clean[index] for index in groups[key]], add)
            if found is not None:
                payload = _checked_total(clean[groups[key][0]]["category"], found[0])
                updates.append({"id": row[1], "payload": payload, "event_ids": found[1]})
        if updates:
            with server_bound_cursor() as cursor:
                params: list[Any] = [jsonb_param(orjson.dumps(updates))]
                cursor.execute(_UPDATE, params)
    return [result for result in results if result is not None]


def _locked(keys: list[str]) -> dict[str, tuple[str, str, Any, list[str]]]:
    with server_bound_cursor() as cursor:
        cursor.execute(_LOCK, [sorted(keys)])
        # (Django's connection loads jsonb as its text.)
        return {key: (key, pk, orjson.loads(payload) if isinstance(payload, str | bytes)
                      else payload, list(event_ids or ()))
                for key, pk, payload, event_ids in cursor.fetchall()}
