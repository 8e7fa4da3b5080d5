"""The Retain Job's write of free-text memories (docs/memories.md): for each `memory`
observation of a chunk, the Memory row (its text and provenance read from its raw event, its
decay parameters from its grid cell) and its mentions of the entities the chunk resolved.
Set-based, in the chunk's transaction; a memory already written is left as it is."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import connection
from psycopg.types.json import Jsonb

from memory import clock
from memory.config import DecayConfig
from memory.models.events import MemoryEvent
from memory.retain.extraction import actors_by_role
from memory.retain.memories import PROJECT_REF, SPEAKER, SPEAKER_REF, mention_ref
from memory.retain.mentions import UNKNOWN
from memory.services.retain_graph import GraphCache
from memory.services.retain_writes import ChunkWrites, MemoryWrite
from memory.services.taxonomy import namespace_resolve

_INSERT = """
INSERT INTO memory_memory (event_id, source, source_id, observation_id, text, actor, project,
    occurred_at, metadata, language, namespace_id, memory_type, referent, base, half_life_days,
    valence, pinned, retrieval_count, last_reinforced_at, embedded, created_at)
SELECT e.id, e.source, e.source_id, v.observation_id, v.text, e.actor, e.project,
    e.occurred_at, v.metadata, v.language, %s, %s, %s, %s, %s, v.valence, %s, 0, e.occurred_at,
    false, %s
FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::jsonb[])
    WITH ORDINALITY AS v(event_id, observation_id, language, valence, text, metadata, position)
JOIN memory_memoryevent AS e ON e.id = v.event_id
ORDER BY v.position
ON CONFLICT (event_id) DO NOTHING
"""

_IDS = "SELECT event_id, id FROM memory_memory WHERE event_id = ANY(%s::text[])"

_MENTIONS = """
INSERT INTO memory_memorymention (memory_id, entity_id, role, surface, value)
SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::varchar[], %s::varchar[], %s::varchar[])
ON CONFLICT (memory_id, entity_id, role) DO NOTHING
"""


def _execute(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def _texts_and_metadata(event_ids: Sequence[str]) -> dict[str, tuple[str, dict[str, Any]]]:
    """Each memory event's text and metadata object, from its payload (read in Python: the
    database cannot look inside a stored payload)."""
    found = {}
    for event_id, payload in MemoryEvent.objects.filter(id__in=event_ids).values_list(
            "id", "payload"):
        payload = payload if isinstance(payload, dict) else {}
        text, metadata = payload.get("text"), payload.get("metadata")
        found[event_id] = (text if isinstance(text, str) else "",
                           metadata if isinstance(metadata, dict) else {})
    return found


def _kind_of_namespace(config: DecayConfig) -> dict[str, str]:
    found: dict[str, str] = {}
    for kind, path in config.memories.kinds.items():
        found.setdefault(path, kind)
    return found


def _role(mention: Mapping[str, Any], namespace: str, kinds: Mapping[str, str]) -> str:
    """A mention of no known kind is what the namespace it was found or created in holds."""
    kind = str(mention.get("kind") or UNKNOWN)
    return kinds.get(namespace, kind) if kind == UNKNOWN else kind


def _mention_rows(write: MemoryWrite, memory_id: int, cache: GraphCache,
                  kinds: Mapping[str, str]) -> list[tuple[int, int, str, str, str]]:
    rows: dict[tuple[int, str], tuple[int, int, str, str, str]] = {}
    mentions = write.view.payload.get("mentions")
    for index, mention in enumerate(mentions if isinstance(mentions, list) else []):
        key = write.keys.get(mention_ref(index))
        if key is None or not isinstance(mention, Mapping):
            continue
        node = cache.nodes[key]
        if node.id is None:
            continue
        role = _role(mention, node.namespace.path, kinds)[:32]
        rows.setdefault((node.id, role), (memory_id, node.id, role,
                                          str(mention.get("name") or "")[:300],
                                          str(mention.get("value") or "")[:64]))
    speaker = actors_by_role(write.view).get(SPEAKER, {}).get("name", "")
    for ref, role, surface in ((PROJECT_REF, "project", write.view.text("project")),
                               (SPEAKER_REF, SPEAKER, speaker)):
        key = write.keys.get(ref)
        named = cache.nodes[key] if key is not None else None
        if named is not None and named.id is not None:
            rows.setdefault((named.id, role), (memory_id, named.id, role, surface[:300], ""))
    return list(rows.values())


def memories_write(*, cache: GraphCache, writes: ChunkWrites, config: DecayConfig) -> int:
    """Write the chunk's memories and their mentions; returns how many memories were new."""
    if not writes.memories:
        return 0
    namespace = namespace_resolve(path=config.memories.namespace, config=config)
    # In the order the job applied them (canonical): ids follow it.
    by_event = {w.view.text("event_id"): w for w in writes.memories if w.view.text("event_id")}
    events = list(by_event)
    said = _texts_and_metadata(events)
    inserted = _execute(_INSERT + " RETURNING event_id", [
        namespace.pk, namespace.memory_type, namespace.referent, namespace.base_strength,
        namespace.half_life_days, namespace.pinned, clock.now(), events,
        [by_event[e].view.id for e in events], [by_event[e].view.text("language")[:16]
                                                for e in events],
        [by_event[e].view.sentiment for e in events],
        [said.get(e, ("", {}))[0] for e in events],
        [Jsonb(said.get(e, ("", {}))[1]) for e in events]])
    ids = dict(_execute(_IDS, [events]))
    kinds = _kind_of_namespace(config)
    rows = [row for event_id in events if event_id in ids
            for row in _mention_rows(by_event[event_id], ids[event_id], cache, kinds)]
    if rows:
        _execute(_MENTIONS, [list(column) for column in zip(*rows, strict=True)])
    return len(inserted)


