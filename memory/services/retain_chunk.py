"""One chunk of observations through the Retain Job: handlers, a few reads, the steps in
canonical order (each observation sees the effects of the ones before it), a few writes.
The caller holds the retain lock and the transaction."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from memory.config import DecayConfig
from memory.models import Observation, ObservationStatus
from memory.retain.extraction import Extraction, ObservationView
from memory.retain.registry import handler_for
from memory.retain.text import content_lemmas, normalize
from memory.selectors.sql import sql_rows
from memory.services.retain_flush import chunk_flush
from memory.services.retain_graph import GraphCache
from memory.services.retain_steps import ObservationStep, Replay
from memory.services.retain_writes import ChunkWrites, Outcome
from memory.services.taxonomy import NamespaceUnknown


@dataclass
class ChunkReport:
    statuses: Counter[str] = field(default_factory=Counter)
    routes: Counter[str] = field(default_factory=Counter)
    created: int = 0
    conflicts: int = 0
    needs_dedup: bool = False

    def add(self, other: ChunkReport) -> None:
        self.statuses.update(other.statuses)
        self.routes.update(other.routes)
        self.created += other.created
        self.conflicts += other.conflicts
        self.needs_dedup = self.needs_dedup or other.needs_dedup


# The columns a view reads (the rest of an Observation is not loaded by the job).
VIEW_FIELDS = ("id", "dedup_key", "source", "timestamp", "category", "target_namespace", "topic",
               "actors", "sentiment", "sentiment_score", "payload_typed", "event_ids")


# Rows come in binary (timestamps load several times faster than from text), the jsonb
# columns as their text, which orjson reads (a binary jsonb would be parsed by json).
_JSON_FIELDS = ("actors", "payload_typed")
_LOCK_VIEWS = ("SELECT " + ", ".join(f'"{f}"::text' if f in _JSON_FIELDS else f'"{f}"'
                                     for f in VIEW_FIELDS) + " FROM memory_observation "
               "WHERE id = ANY(%b::varchar[]) AND status = 'pending' ORDER BY order_key "
               "FOR UPDATE")


def _json(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # what orjson refuses and json reads (integers > 64 bits)
        return json.loads(text)


def chunk_views_lock(ids: Sequence[str]) -> list[ObservationView]:
    """The views of these observations that are still pending, locked, in canonical order
    (read as rows, not models: the job reads nothing else of them)."""
    views = []
    for (pk, dedup_key, source, timestamp, category, namespace, topic, actors, sentiment,
         score, payload, event_ids) in sql_rows(_LOCK_VIEWS, [list(ids)], binary=True):
        payload = _json(payload)
        views.append(ObservationView(
            id=pk, dedup_key=dedup_key, source=source, timestamp=timestamp, category=category,
            target_namespace=namespace, topic=topic, actors=tuple(_json(actors) or ()),
            sentiment=sentiment, sentiment_score=score,
            payload=payload if isinstance(payload, dict) else {},
            event_ids=tuple(event_ids or ())))
    return views


def view_of(observation: Observation) -> ObservationView:
    return ObservationView(
        id=observation.id, dedup_key=observation.dedup_key, source=observation.source,
        timestamp=observation.timestamp, category=observation.category,
        target_namespace=observation.target_namespace, topic=observation.topic,
        actors=tuple(observation.actors or ()), sentiment=observation.sentiment,
        sentiment_score=observation.sentiment_score,
        payload=observation.payload_typed if isinstance(observation.payload_typed, dict) else {},
        event_ids=tuple(observation.event_ids or ()),
    )


def _extract(view: ObservationView) -> tuple[Extraction, bool] | Outcome:
    """The handler's extraction, and whether the handler names the namespace (not a
    catch-all); or the outcome of an observation no handler can take."""
    registration = handler_for(category=view.category, namespace=view.target_namespace)
    if registration is None:
        return Outcome(view.id, ObservationStatus.UNHANDLED,
                       error=f"no handler for ({view.category}, {view.target_namespace})")
    try:
        extraction = registration.handler(view)
        extraction.check()
        extraction = extraction.without_ids()
    except Exception as exc:  # a handler's bug fails its observation, not the chunk
        return Outcome(view.id, ObservationStatus.FAILED,
                       error=f"handler {registration.category}/{registration.pattern or '*'}: "
                             f"{type(exc).__name__}: {exc}")
    return extraction, bool(registration.pattern)


def _prefetch(cache: GraphCache, plans: Sequence[tuple[ObservationView, Extraction]]) -> None:
    specs = [spec for _, extraction in plans for spec in extraction.entities]
    cache.load_namespaces({s.namespace for s in specs} | {v.target_namespace for v, _ in plans}
                          | {path for s in specs for path in s.also_in})
    cache.load_entities(keys={s.full_key for s in specs})
    cache.load_aliases({(path, normalize(name)) for s in specs
                        for path in (s.namespace, *s.also_in) for name in (s.name, *s.aliases)})
    cache.load_pairs({(v.category, v.target_namespace) for v, _ in plans})
    cache.load_vocabulary({(v.target_namespace, lemma) for v, _ in plans
                           for lemma in content_lemmas(v.topic)})
    claimed = [spec for _, extraction in plans for spec in extraction.entities
               if any(f.entity == spec.ref for f in extraction.facts)]
    found = (cache.find(key=s.full_key, namespace=s.namespace, names=(s.name, *s.aliases))
             for s in claimed)
    cache.load_facts(node for node in found if node is not None)


def chunk_retain(
    observations: Sequence[Observation | ObservationView], *, config: DecayConfig,
    replay: Replay | None = None,
    attempted: bool = False,
) -> ChunkReport:
    """Retain these observations, in this order, and write the outcome (the caller's
    transaction makes it all-or-nothing); `attempted`: the outcome counts an attempt."""
    cache, writes = GraphCache(), ChunkWrites(attempted=attempted)
    plans: list[tuple[ObservationView, Extraction]] = []
    specific: dict[str, bool] = {}
    for observation in observations:
        view = observation if isinstance(observation, ObservationView) else view_of(observation)
        found = _extract(view)
        if isinstance(found, Outcome):
            writes.outcomes.append(found)
        else:
            plans.append((view, found[0]))
            specific[view.id] = found[1]
    _prefetch(cache, plans)
    for view, extraction in plans:
        step = ObservationStep(view, extraction, cache=cache, writes=writes, config=config,
                               replay=replay, specific_handler=specific[view.id])
        try:
            step.plan()
        except NamespaceUnknown as exc:
            writes.outcomes.append(Outcome(view.id, ObservationStatus.FAILED, error=str(exc)))
            continue
        writes.outcomes.append(step.apply())
    chunk_flush(cache=cache, writes=writes, config=config)
    report = ChunkReport(created=len(writes.created), conflicts=len(writes.conflicts))
    report.statuses.update(o.status for o in writes.outcomes)
    report.routes.update(o.route for o in writes.outcomes if o.route)
    report.needs_dedup = any(cache.nodes[k].dedup == "pending" for k in writes.created)
    return report
