"""Reads of the graph as a whole: its canonical digest (replay == incremental) and the
summary `cortex demo` reports."""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson
from django.db.models import Count, F, Q

from memory import clock
from memory.config import DecayConfig, config_get
from memory.models import (
    Conflict,
    ConflictStatus,
    Entity,
    EntityMention,
    EntityMerge,
    EntityStatus,
    Fact,
    Observation,
    ObservationStatus,
    PairFamiliarity,
    Relation,
    ReviewItem,
    VocabularyTerm,
)
from memory.selectors.entities import STRENGTH_NOW, entity_with_strength


def _t(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _roots() -> dict[int, str]:
    """Entity id -> the key of the entity it lives on (itself, or its merge survivor)."""
    rows = {pk: (key, merged) for pk, key, merged
            in Entity.objects.values_list("id", "key", "merged_into_id")}
    roots: dict[int, str] = {}
    for pk in rows:
        current, hops = pk, 0
        while rows[current][1] is not None and hops < 100:
            current, hops = rows[current][1], hops + 1
        roots[pk] = rows[current][0]
    return roots


def _entities() -> Iterator[Any]:
    fields = ("key", "namespace__path", "display_name", "aliases", "memory_type", "referent",
              "base", "half_life_days", "valence", "pos", "neg", "retrieval_count",
              "last_reinforced_at", "pinned", "route", "status", "created_at")
    for row in Entity.objects.exclude(status=EntityStatus.MERGED).order_by("key").values(*fields):
        row["aliases"] = sorted(row["aliases"])
        yield ["entity", *(_t(v) if isinstance(v, datetime) else v for v in row.values())]


def _merged(roots: dict[int, str]) -> Iterator[Any]:
    rows = Entity.objects.filter(status=EntityStatus.MERGED).values_list("id", "key")
    for pk, key in sorted(rows, key=lambda r: r[1]):
        yield ["merged", key, roots[pk]]


def _relations(roots: dict[int, str]) -> Iterator[Any]:
    merged: dict[tuple[str, str, str], list[Any]] = {}
    for s, t, rtype, rclass, count, last, first in Relation.objects.values_list(
            "source_id", "target_id", "relation_type", "relation_class", "evidence_count",
            "last_reinforced_at", "created_at"):
        edge = (roots[s], roots[t], rtype)
        if edge[0] == edge[1]:
            continue
        if edge in merged:
            entry = merged[edge]
            entry[1] += count
            entry[2], entry[3] = max(entry[2], last), min(entry[3], first)
        else:
            merged[edge] = [rclass, count, last, first]
    for edge in sorted(merged):
        rclass, count, last, first = merged[edge]
        yield ["relation", *edge, rclass, count, _t(last), _t(first)]


def _facts(roots: dict[int, str]) -> Iterator[Any]:
    grouped: dict[tuple[str, str, int], dict[str, Any]] = {}
    rows = Fact.objects.values("entity_id", "entity__key", "claim", "lemma_key", "polarity",
                               "status", "scope", "evidence_count", "first_seen_at",
                               "last_seen_at")
    for row in rows:
        key = (roots[row["entity_id"]], row["lemma_key"], row["polarity"])
        entry = grouped.get(key)
        on_root = row["entity__key"] == key[0]
        if entry is None:
            grouped[key] = {**row, "on_root": on_root}
            continue
        entry["evidence_count"] += row["evidence_count"]
        entry["first_seen_at"] = min(entry["first_seen_at"], row["first_seen_at"])
        entry["last_seen_at"] = max(entry["last_seen_at"], row["last_seen_at"])
        if on_root and not entry["on_root"]:
            entry.update(claim=row["claim"], status=row["status"], scope=row["scope"],
                         on_root=True)
    for key in sorted(grouped):
        e = grouped[key]
        yield ["fact", *key, e["claim"], e["status"], e["scope"], e["evidence_count"],
               _t(e["first_seen_at"]), _t(e["last_seen_at"])]


def _conflicts(roots: dict[int, str]) -> Iterator[Any]:
    rows = Conflict.objects.values_list("entity_id", "existing__lemma_key", "existing__polarity",
                                        "new__lemma_key", "new__polarity", "status", "jaccard")
    for e, el, ep, nl, np, status, overlap in sorted(rows, key=lambda r: (roots[r[0]], *r[1:])):
        yield ["conflict", roots[e], el, ep, nl, np, status, round(overlap, 9)]


def _observations() -> Iterator[Any]:
    rows = Observation.objects.order_by("dedup_key").values_list(
        "dedup_key", "status", "schema_fit", "error")
    for dedup, status, fit, error in rows:
        yield ["observation", dedup, status, None if fit is None else round(fit, 9), error]


def _reviews(roots: dict[int, str]) -> Iterator[Any]:
    entities: dict[int, list[str]] = defaultdict(list)
    for item_id, entity_id in ReviewItem.entities.through.objects.values_list(
            "reviewitem_id", "entity_id"):
        entities[item_id].append(roots[entity_id])
    rows = ReviewItem.objects.values_list("id", "observation__dedup_key", "status", "schema_fit",
                                          "merged_into__key")
    for pk, dedup, status, fit, into in sorted(rows, key=lambda r: r[1]):
        yield ["review", dedup, status, round(fit, 9), sorted(entities[pk]), into]


def _merges() -> Iterator[Any]:
    """Merges by the keys they joined, and whether they were split (the merged entity's
    status and its survivor are in `_merged`)."""
    rows = EntityMerge.objects.values_list("merged__key", "survivor__key", "reason",
                                           "merged_status", "split_at")
    for merged, survivor, reason, status, split in sorted(
            (m, s, r, st, sp is not None) for m, s, r, st, sp in rows):
        yield ["merge", merged, survivor, reason, status, split]


def _mentions(roots: dict[int, str]) -> Iterator[Any]:
    seen = {(roots[e], dedup, role) for e, dedup, role in EntityMention.objects.values_list(
        "entity_id", "observation__dedup_key", "role")}
    for mention in sorted(seen):
        yield ["mention", *mention]


def _bookkeeping() -> Iterator[Any]:
    for row in PairFamiliarity.objects.order_by("category", "namespace").values_list(
            "category", "namespace", "retained"):
        yield ["pair", *row]
    for namespace, lemma in VocabularyTerm.objects.order_by("namespace", "lemma").values_list(
            "namespace", "lemma"):
        yield ["vocabulary", namespace, lemma]


def graph_lines() -> Iterator[Any]:
    """The graph in canonical form: no generated ids, no processing times; merged entities
    seen through their survivor."""
    roots = _roots()
    yield from _entities()
    yield from _merged(roots)
    yield from _relations(roots)
    yield from _facts(roots)
    yield from _conflicts(roots)
    yield from _reviews(roots)
    yield from _merges()
    yield from _mentions(roots)
    yield from _observations()
    yield from _bookkeeping()


def graph_digest() -> str:
    """sha256 of the canonical graph: equal for the incremental path and a replay."""
    digest = hashlib.sha256()
    for line in graph_lines():
        digest.update(orjson.dumps(line))
        digest.update(b"\n")
    return digest.hexdigest()


@dataclass
class GraphSummary:
    namespaces: list[dict[str, Any]] = field(default_factory=list)
    strongest: list[dict[str, Any]] = field(default_factory=list)
    quarantined: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    routes: dict[str, int] = field(default_factory=dict)
    observations: dict[str, int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)


def observation_routes(*, config: DecayConfig | None = None) -> dict[str, int]:
    """How the retained observations were routed (from their schema_fit)."""
    config = config or config_get()
    done = Observation.objects.filter(status__in=[ObservationStatus.RETAINED,
                                                  ObservationStatus.QUARANTINED])
    return {
        "dark_matter": done.filter(status=ObservationStatus.QUARANTINED).count(),
        "normal": done.filter(status=ObservationStatus.RETAINED,
                              schema_fit__lte=config.routes.fast_lane_above).count(),
        "fast_lane": done.filter(status=ObservationStatus.RETAINED,
                                 schema_fit__gt=config.routes.fast_lane_above).count(),
    }


def graph_summary(*, limit: int = 10, now: datetime | None = None,
                  config: DecayConfig | None = None) -> GraphSummary:
    """Entities per namespace, the strongest, the quarantined, the open conflicts, routes."""
    now = now or clock.now()
    summary = GraphSummary(routes=observation_routes(config=config))
    per_ns = (Entity.objects.values("namespace__path")
              .annotate(total=Count("id"), active=Count("id", filter=Q(status="active")),
                        quarantined=Count("id", filter=Q(status="quarantined")))
              .order_by("-total", "namespace__path"))
    summary.namespaces = [{"namespace": r["namespace__path"], "entities": r["total"],
                           "active": r["active"], "quarantined": r["quarantined"]}
                          for r in per_ns]
    strongest = entity_with_strength(
        now=now, config=config, queryset=Entity.objects.filter(status=EntityStatus.ACTIVE)
    ).order_by(F(STRENGTH_NOW).desc(nulls_last=True), "key")[:limit]
    summary.strongest = [{"key": e.key, "name": e.display_name,
                          "strength": getattr(e, STRENGTH_NOW), "pinned": e.pinned,
                          "mentions": e.retrieval_count} for e in strongest]
    summary.quarantined = [{"key": e.key, "name": e.display_name} for e in
                           Entity.objects.filter(status=EntityStatus.QUARANTINED)
                           .order_by("-created_at", "key")[:limit]]
    summary.conflicts = [{"entity": c.entity.key, "existing": str(c.existing), "new": str(c.new)}
                         for c in Conflict.objects.filter(status=ConflictStatus.OPEN)
                         .select_related("entity", "existing", "new").order_by("-created_at")
                         [:limit]]
    summary.observations = dict(Counter(dict(
        Observation.objects.values_list("status").annotate(n=Count("id")).values_list(
            "status", "n"))))
    summary.counts = {"entities": Entity.objects.count(), "relations": Relation.objects.count(),
                      "facts": Fact.objects.count(),
                      "conflicts_open": Conflict.objects.filter(status="open").count(),
                      "dark_matter_open": ReviewItem.objects.filter(status="open").count()}
    return summary
