"""The graph as the detectors read it: entities strong enough to ground a proposal (at or
above the injection threshold, not quarantined), the observations that mention them, and
the project each observation happened in (docs/actuation.md)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.db import connection
from django.db.models import Q

from actuation import gitops
from actuation.models import TargetRepository
from actuation.selectors.items import items_settled
from actuation.selectors.repositories import (
    repository_list,
    repository_match,
    repository_projects,
)
from memory.config import DecayConfig
from memory.models import Entity, EntityMention, EntityStatus, MemoryEvent, Observation
from memory.selectors.entities import STRENGTH_NOW, entity_with_strength
from memory.selectors.taxonomy import namespaces_like


@dataclasses.dataclass(frozen=True)
class Grounding:
    id: int
    key: str
    name: str
    strength: float


@dataclasses.dataclass(frozen=True)
class Occurrence:
    observation: str
    entity: int
    session: str
    at: datetime
    payload: dict[str, Any]
    events: tuple[str, ...]


@dataclasses.dataclass
class Pattern:
    """One entity's occurrences in one repository."""

    entity: Grounding
    repository: TargetRepository
    occurrences: list[Occurrence] = dataclasses.field(default_factory=list)

    @property
    def sessions(self) -> set[str]:
        return {o.session for o in self.occurrences if o.session}


# (a payload key, the values it may take): the observations a detector counts.
PayloadIn = tuple[str, Sequence[str]]
# Mentions of the entities by observations of a category in the window, by the project of
# the first event each observation derives from: distinct sessions per (entity, project).
_RECURRING = """
SELECT m.entity_id, e.project, count(DISTINCT o.correlation_session)
FROM memory_entitymention AS m
JOIN memory_observation AS o ON o.id = m.observation_id
JOIN memory_memoryevent AS e ON e.id = o.event_ids[1]
WHERE m.entity_id = ANY(%s) AND o.category = %s AND o.timestamp >= %s AND o.timestamp <= %s
  AND o.correlation_session <> '' {extra}
GROUP BY m.entity_id, e.project
"""


def session_fingerprints(*, repository: TargetRepository, since: datetime, until: datetime,
                         batch_size: int) -> dict[str, str]:
    """session -> the session itself, in this repository's projects: every prompt of the
    operator and every tool call (name and input), each with its project and its time,
    hashed as a set (the sidechains of a copy may interleave otherwise). Only the same
    session imported again under another id (the same words and calls, in the same project,
    at the same times) hashes the same: a copy of it made in another project or on another
    day is work done again, and counts. (The payloads are packed: read here, not in SQL.)"""
    rows = (MemoryEvent.objects.filter(project__in=repository_projects(repository=repository),
                                       occurred_at__gte=since, occurred_at__lte=until)
            .filter(Q(subtype="assistant.tool_use") | Q(subtype="user.prompt", actor="operator"))
            .exclude(correlation_session="")
            .values_list("correlation_session", "project", "occurred_at", "subtype",
                         "payload"))
    parts: dict[str, list[bytes]] = defaultdict(list)
    for session, project, at, subtype, payload in rows.iterator(chunk_size=batch_size):
        if subtype == "user.prompt":
            part = "p" + _message_text(payload)
        else:
            part = "t" + _first_block_text(payload, "name") + "\t" + json.dumps(
                _first_block(payload).get("input"), sort_keys=True, default=str)
        part += f"\t{project}\t{at.isoformat()}"
        parts[session].append(hashlib.sha256(part.encode()).digest())
    return {session: hashlib.sha256(b"".join(sorted(found))).hexdigest()
            for session, found in parts.items()}


class Graph:
    """Read-only; every query bounded by the window and paged by `batch_size`."""

    def __init__(self, *, now: datetime, config: DecayConfig,
                 repositories: Sequence[TargetRepository] | None = None) -> None:
        self.now, self.config = now, config
        self.since = now - timedelta(days=config.actuation.window_days)
        self.repositories = list(repository_list() if repositories is None else repositories)
        self._places: dict[str, tuple[str, str]] = {}
        self._files: dict[tuple[int, str], str | None] = {}
        self._settled: dict[tuple[int, str], set[str]] = {}
        self._fingerprints: dict[int, dict[str, str]] = {}

    def fingerprints(self, repository: TargetRepository) -> dict[str, str]:
        """session -> the session itself (`session_fingerprints`), read once."""
        if repository.pk not in self._fingerprints:
            self._fingerprints[repository.pk] = session_fingerprints(
                repository=repository, since=self.since, until=self.now,
                batch_size=self.config.actuation.batch_size)
        return self._fingerprints[repository.pk]

    def distinct(self, repository: TargetRepository,
                 occurrences: Sequence[Occurrence]) -> list[Occurrence]:
        """The occurrences of distinct sessions: of sessions with one fingerprint (one
        session imported again under other ids), only the first by time counts. A copy made
        in another project or on another day is work done again: it counts."""
        prints = self.fingerprints(repository)
        first: dict[str, tuple[datetime, str]] = {}
        for occ in occurrences:
            if occ.session:
                key = prints.get(occ.session, occ.session)
                first[key] = min(first.get(key, (occ.at, occ.session)), (occ.at, occ.session))
        kept = {session for _, session in first.values()}
        return [o for o in occurrences if o.session in kept]

    def settled(self, repository: TargetRepository, detector: str) -> set[str]:
        """The item keys the operator already decided for this repository and detector
        (dropped, rejected, approved): never drafted again."""
        key = (repository.pk, detector)
        if key not in self._settled:
            self._settled[key] = items_settled(repository_id=repository.pk, detector=detector)
        return self._settled[key]

    def grounded(self, *, namespace: str, ids: Sequence[int] | None = None) -> list[Grounding]:
        """Entities of `namespace` strong enough now to ground a proposal."""
        rows = Entity.objects.filter(namespace_id__in=namespaces_like(namespace),
                                     status=EntityStatus.ACTIVE)
        if ids is not None:
            rows = rows.filter(id__in=list(ids))
        rows = entity_with_strength(now=self.now, config=self.config, queryset=rows).filter(
            **{f"{STRENGTH_NOW}__gte": self.config.actuation.ground_strength})
        return [Grounding(id=i, key=k, name=n or k, strength=float(s))
                for i, k, n, s in rows.values_list("id", "key", "display_name", STRENGTH_NOW)]

    def occurrences(self, *, entities: Sequence[Grounding], category: str,
                    where: Q | None = None) -> Iterator[Occurrence]:
        """The observations of `category` in the window that mention these entities (`where`
        filters the mentions: `Q(observation__payload_typed__decision="granted")`)."""
        by_id = [e.id for e in entities]
        size = self.config.actuation.batch_size
        seen: set[tuple[str, int]] = set()
        for start in range(0, len(by_id), size):
            chunk = by_id[start:start + size]
            rows = EntityMention.objects.filter(
                entity_id__in=chunk, observation__category=category,
                observation__timestamp__gte=self.since, observation__timestamp__lte=self.now)
            if where is not None:
                rows = rows.filter(where)
            for oid, entity, session, at, payload, events in rows.values_list(
                    "observation_id", "entity_id", "observation__correlation_session",
                    "observation__timestamp", "observation__payload_typed",
                    "observation__event_ids").iterator(chunk_size=size):
                if (oid, entity) in seen:
                    continue
                seen.add((oid, entity))
                yield Occurrence(observation=oid, entity=entity, session=session, at=at,
                                 payload=payload or {}, events=tuple(events or ()))

    def recurring(self, *, entities: Sequence[Grounding], category: str,
                  payload_in: PayloadIn | None, min_sessions: int) -> list[Grounding]:
        """The entities mentioned by observations of `category` in at least `min_sessions`
        sessions of one registered repository in the window, counted in SQL by project."""
        size = self.config.actuation.batch_size
        counts: dict[tuple[int, int], int] = defaultdict(int)
        projects: dict[str, TargetRepository | None] = {}
        for start in range(0, len(entities), size):
            ids = [e.id for e in entities[start:start + size]]
            params: list[Any] = [ids, category, self.since, self.now]
            extra = ""
            if payload_in is not None:
                extra = "AND o.payload_typed ->> %s = ANY(%s)"
                params += [payload_in[0], list(payload_in[1])]
            with connection.cursor() as cursor:
                cursor.execute(_RECURRING.format(extra=extra), params)
                for entity, project, sessions in cursor.fetchall():
                    if project not in projects:
                        projects[project] = self._project_repository(project)
                    repository = projects[project]
                    if repository is not None:
                        counts[(entity, repository.pk)] += sessions
        kept = {entity for (entity, _), n in counts.items() if n >= min_sessions}
        return [e for e in entities if e.id in kept]

    def _project_repository(self, project: str) -> TargetRepository | None:
        """The repository a project name is: by the path of one of its events, else by name."""
        cwd = ""
        if project:
            payloads = (MemoryEvent.objects.filter(project=project).order_by("pk")
                        .values_list("payload", flat=True))
            cwd = next(filter(None, map(_cwd, payloads.iterator(chunk_size=100))), "")
        return repository_match(repositories=self.repositories, project=project, cwd=cwd)

    def patterns(self, *, namespace: str, category: str, payload_in: PayloadIn | None = None,
                 min_sessions: int = 1) -> list[Pattern]:
        """Occurrences grouped by entity and by the repository they happened in, for the
        grounded entities seen in at least `min_sessions` sessions."""
        entities = self.grounded(namespace=namespace)
        if min_sessions > 1:
            entities = self.recurring(entities=entities, category=category,
                                      payload_in=payload_in, min_sessions=min_sessions)
        by_id = {e.id: e for e in entities}
        where = (None if payload_in is None else
                 Q(**{f"observation__payload_typed__{payload_in[0]}__in": list(payload_in[1])}))
        found = list(self.occurrences(entities=entities, category=category, where=where))
        self._locate(found)
        groups: dict[tuple[int, int], Pattern] = {}
        for occ in found:
            repository = self.repository_of(occ)
            if repository is None:
                continue
            key = (occ.entity, repository.pk)
            if key not in groups:
                groups[key] = Pattern(entity=by_id[occ.entity], repository=repository)
            groups[key].occurrences.append(occ)
        return sorted(groups.values(), key=lambda p: (p.repository.name, p.entity.key))

    def file(self, repository: TargetRepository, path: str) -> str | None:
        """The file at the tip of the repository's base branch (None: absent), read once per
        detection from git's objects: the operator's working tree and index are untouched."""
        key = (repository.pk, path)
        if key not in self._files:
            self._files[key] = gitops.file_at(
                Path(repository.path), ref=repository.default_branch, path=path,
                timeout=self.config.actuation.command_timeout_seconds)
        return self._files[key]

    def _locate(self, occurrences: Sequence[Occurrence]) -> None:
        wanted = {o.events[0] for o in occurrences if o.events} - set(self._places)
        ids = sorted(wanted)
        size = self.config.actuation.batch_size
        for start in range(0, len(ids), size):
            rows = MemoryEvent.objects.filter(id__in=ids[start:start + size]).values_list(
                "id", "project", "payload")
            for eid, project, payload in rows:
                self._places[eid] = (project or "", _cwd(payload))

    def repository_of(self, occurrence: Occurrence) -> TargetRepository | None:
        if not occurrence.events:
            return None
        project, cwd = self._places.get(occurrence.events[0], ("", ""))
        return repository_match(repositories=self.repositories, project=project, cwd=cwd)

    def uses_after(self, *, occurrences: Sequence[Occurrence], sample: int,
                   steps: int) -> dict[str, list[ToolUse]]:
        """For each of the first `sample` occurrences (by observation id): the next `steps`
        tool uses of the agent in the same session, each with whether it failed (one query
        for the sample)."""
        chosen = [o for o in occurrences if o.session][:sample]
        if not chosen:
            return {}
        rows = (MemoryEvent.objects.filter(
            correlation_session__in={o.session for o in chosen},
            subtype__in=("assistant.tool_use", "user.tool_result"),
            occurred_at__gt=min(o.at for o in chosen))
            .order_by("occurred_at", "id").values_list("correlation_session", "occurred_at",
                                                       "payload"))
        uses: dict[str, list[ToolUse]] = defaultdict(list)
        failed: dict[str, bool] = {}
        for session, at, payload in rows.iterator(chunk_size=self.config.actuation.batch_size):
            for block in _blocks(payload, "tool_use"):
                command = block.get("input", {}).get("command") \
                    if isinstance(block.get("input"), dict) else ""
                uses[session].append(ToolUse(id=str(block.get("id") or ""), at=at,
                                             tool=str(block.get("name") or ""),
                                             command=command if isinstance(command, str)
                                             else ""))
            for block in _blocks(payload, "tool_result"):
                failed[str(block.get("tool_use_id") or "")] = _result_failed(block)
        out = {}
        for occ in chosen:
            after = [u for u in uses[occ.session] if u.at > occ.at][:steps]
            out[occ.observation] = [dataclasses.replace(u, failed=failed.get(u.id))
                                    for u in after]
        return out

    def next_tools(self, *, occurrences: Sequence[Occurrence], limit: int) -> list[str]:
        """The tool the agent used next after each occurrence, in the same session (one
        query for the sample)."""
        sample = [o for o in occurrences if o.session][:limit]
        if not sample:
            return []
        rows = (MemoryEvent.objects.filter(
            correlation_session__in={o.session for o in sample}, subtype="assistant.tool_use",
            occurred_at__gt=min(o.at for o in sample))
            .order_by("occurred_at", "id").values_list("correlation_session", "occurred_at",
                                                       "payload"))
        uses: dict[str, list[tuple[datetime, str]]] = defaultdict(list)
        for session, at, payload in rows:
            uses[session].append((at, _first_block_text(payload, "name")))
        out = []
        for occ in sample:
            name = next((tool for at, tool in uses[occ.session] if at > occ.at), "")
            if name:
                out.append(name)
        return out


@dataclasses.dataclass(frozen=True)
class ToolUse:
    id: str
    at: datetime
    tool: str
    command: str
    failed: bool | None = None  # None: no result seen


_EXIT = re.compile(r"^\s*(?:Error: )?Exit code (?P<code>-?\d+)")


def _blocks(payload: Any, kind: str) -> list[dict[str, Any]]:
    message = payload.get("message") if isinstance(payload, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == kind]


def _result_failed(block: dict[str, Any]) -> bool:
    if block.get("is_error"):
        return True
    content = block.get("content")
    text = content if isinstance(content, str) else " ".join(
        str(c.get("text") or "") for c in content if isinstance(c, dict)) \
        if isinstance(content, list) else ""
    found = _EXIT.match(text)
    return bool(found and found.group("code") != "0")


def tool_uses(*, repository: TargetRepository, since: datetime, until: datetime,
              batch_size: int) -> Iterator[tuple[str, str, datetime, str, str]]:
    """(session, event id, time, tool name, Bash command) of each tool use in the window in
    this repository's projects, by session then time."""
    rows = (MemoryEvent.objects.filter(project__in=repository_projects(repository=repository),
                                       subtype="assistant.tool_use", occurred_at__gte=since,
                                       occurred_at__lte=until)
            .exclude(correlation_session="")
            .order_by("correlation_session", "occurred_at", "id")
            .values_list("correlation_session", "id", "occurred_at", "payload"))
    for session, eid, at, payload in rows.iterator(chunk_size=batch_size):
        yield (session, eid, at, _first_block_text(payload, "name"),
               _first_block_text(payload, "input", "command"))


def tool_errors_of(*, sessions: Sequence[str], since: datetime, until: datetime,
                   batch_size: int) -> Iterator[tuple[str, datetime, str]]:
    """(session, when, the tool) of each tool error observed in these sessions in the
    window."""
    ordered = sorted(sessions)
    for start in range(0, len(ordered), batch_size):
        rows = (Observation.objects.filter(
            category="tool_error", correlation_session__in=ordered[start:start + batch_size],
            timestamp__gte=since, timestamp__lte=until)
            .values_list("correlation_session", "timestamp", "payload_typed"))
        for session, at, payload in rows.iterator(chunk_size=batch_size):
            tool = payload.get("tool") if isinstance(payload, dict) else None
            yield session, at, tool if isinstance(tool, str) else ""


def first_prompts(*, repository: TargetRepository, since: datetime,
                  until: datetime) -> dict[str, tuple[str, str, datetime]]:
    """Each session's first prompt from the operator in the window, in this repository's
    projects: session -> (its text, the event's id, when)."""
    rows = (MemoryEvent.objects.filter(project__in=repository_projects(repository=repository),
                                       subtype="user.prompt", actor="operator",
                                       occurred_at__gte=since, occurred_at__lte=until)
            .exclude(correlation_session="")
            .order_by("correlation_session", "occurred_at", "id")
            .distinct("correlation_session")
            .values_list("correlation_session", "id", "occurred_at", "payload"))
    return {session: (_message_text(payload), eid, at) for session, eid, at, payload in rows}


def _message_text(payload: Any) -> str:
    message = payload.get("message") if isinstance(payload, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(b.get("text") or "") for b in content
                        if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _cwd(payload: Any) -> str:
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return cwd if isinstance(cwd, str) else ""


def _first_block(payload: Any) -> dict[str, Any]:
    message = payload.get("message") if isinstance(payload, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    first = content[0] if isinstance(content, list) and content else None
    return first if isinstance(first, dict) else {}


def _first_block_text(payload: Any, *path: str) -> str:
    """A text inside the first block of a message's content ("" when it is not there), as
    the JSON path message.content[0].<path> reads it."""
    message = payload.get("message") if isinstance(payload, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    value: Any = content[0] if isinstance(content, list) and content else None
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, str) else ""


def tool_use_name(payload: dict[str, Any]) -> str:
    for block in tool_use_blocks(payload):
        return str(block.get("name") or "")
    return ""


def tool_use_blocks(payload: dict[str, Any]) -> list[dict[str, Any]]:
    message = payload.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]


def group_count(values: Sequence[str]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for value in values:
        counts[value] += 1
    return dict(counts)
