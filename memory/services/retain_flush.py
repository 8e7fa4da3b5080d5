"""Writing one chunk of the Retain Job: a few set-based statements, in the chunk's
transaction (with the observations' status change: all of it commits or none).

Existing rows are changed by increments (retrieval_count + k, evidence_count + k,
GREATEST of times), never overwritten with values read earlier, so a concurrent writer
(a recall, a feedback) loses nothing."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import orjson
from django.utils import timezone

from memory import clock
from memory.config import DecayConfig
from memory.decay.formulas import EntityState, entity_strength, strength_after
from memory.models import Conflict, ReviewItem
from memory.retain.names import name_embedding_text
from memory.selectors.sql import sql_rows
from memory.services.memories_consolidate import memories_write
from memory.services.retain_graph import FactRow, GraphCache, Node
from memory.services.retain_sql import float_text, json_param, json_rows
from memory.services.retain_writes import ChunkWrites


def _execute(sql: str, params: Sequence[Any], *, binary: bool = False) -> list[tuple[Any, ...]]:
    return sql_rows(sql, params, binary=binary)


def _id(node: Node) -> int:
    assert node.id is not None, f"{node.key} was not written"
    return node.id


_ENTITY_INSERT = (
    "INSERT INTO memory_entity (namespace_id, slug, key, display_name, aliases, memory_type, "
    "referent, base, half_life_days, valence, pos, neg, retrieval_count, last_reinforced_at, "
    "pinned, route, status, strength, strength_evaluated_at, created_at, updated_at) "
    "SELECT v.ns, v.slug, v.key, v.name, "
    "ARRAY(SELECT jsonb_array_elements_text(v.aliases))::varchar[], v.mt, v.referent, v.base, "
    "v.half, v.valence, 0, 0, v.count, v.last, v.pinned, v.route, v.status, v.strength, "
    "v.last, v.created, %s FROM "
    + json_rows("ns bigint", "slug varchar", "key varchar", "name varchar", "aliases jsonb",
                "mt varchar", "referent varchar", "base float8", "half float8",
                "valence varchar", "count int", "last timestamptz", "pinned bool",
                "route varchar", "status varchar", "strength float8", "created timestamptz")
    + " AS v RETURNING id")

_EMBEDDING_INSERT = (
    "INSERT INTO memory_entityembedding (entity_id, namespace_id, model, text, dedup) "
    "SELECT v.id, v.ns, '', v.text, v.dedup FROM "
    + json_rows("id bigint", "ns bigint", "text varchar", "dedup varchar") + " AS v")


def _with_headroom(state: EntityState, config: DecayConfig) -> EntityState:
    """The entity after `strength_bound_recalls` more recalls: its strength bounds the
    strength of this one until then (memory.models.graph)."""
    return dataclasses.replace(
        state, retrieval_count=state.retrieval_count + config.retain.strength_bound_recalls)


def _new_entity(node: Node, config: DecayConfig) -> tuple[Any, ...]:
    """An entity's row, as `_ENTITY_INSERT` reads it (what `Entity(...)` would store, but
    for its strength: a bound, `_with_headroom`)."""
    namespace = node.namespace
    state = EntityState(base=node.base, half_life_days=node.half_life_days, valence=node.valence,
                        retrieval_count=node.retrieval_count, route=node.route, pinned=node.pinned)
    return (namespace.pk, node.key.rpartition(":")[2], node.key, node.display_name,
            [*node.aliases, *node.aliases_added], namespace.memory_type, namespace.referent,
            node.base, node.half_life_days, node.valence, node.retrieval_count,
            node.last_reinforced_at, node.pinned, node.route, node.status,
            float_text(strength_after(_with_headroom(state, config), dt_days=0.0, config=config)),
            node.created_at)


def _entities(cache: GraphCache, writes: ChunkWrites, config: DecayConfig) -> None:
    nodes = [cache.nodes[key] for key in writes.created]
    if nodes:
        made = _execute(_ENTITY_INSERT, [timezone.now(),
                                         json_param(_new_entity(n, config) for n in nodes)])
        for node, (pk,) in zip(nodes, made, strict=True):
            node.id = pk
            cache.by_id[pk] = node
        paths = config.retain.path_names
        _execute(_EMBEDDING_INSERT, [json_param(
            (_id(n), n.namespace.pk, name_embedding_text(
                n.display_name, namespace=n.namespace.path, path_names=paths), n.dedup)
            for n in nodes)])
    renamed = [{"id": n.id, "names": n.aliases_added,
                "display": n.display_name if n.renamed else None}
               for n in cache.nodes.values() if n.aliases_added and not n.new]
    if renamed:
        _execute(
            "UPDATE memory_entity AS e SET aliases = e.aliases || ARRAY("
            "SELECT jsonb_array_elements_text(v.names))::varchar[], "
            "display_name = COALESCE(v.display, e.display_name) "
            "FROM jsonb_to_recordset(%s::jsonb) AS v(id bigint, names jsonb, display varchar) "
            "WHERE e.id = v.id",
            [orjson.dumps(renamed).decode()])
    if cache.new_aliases:
        rows = [(cache.namespaces[ns].pk, name, cache.nodes[key].id)
                for (ns, name), key in cache.new_aliases.items()]
        _execute(
            "INSERT INTO memory_entityalias (namespace_id, normalized, entity_id) "
            "SELECT * FROM " + json_rows("ns bigint", "name varchar", "id bigint") + " AS v "
            "ON CONFLICT (namespace_id, normalized) DO NOTHING",
            [json_param(rows)])


def _reinforcements(cache: GraphCache, config: DecayConfig) -> None:
    """Recalls by increment, on the values the rows hold now: they are read and locked
    first (a recall or a feedback another writer committed since the chunk's read is kept),
    then each row is written once (one new row version, not two). The stored strength is
    only an upper bound (memory.models.graph): it is rewritten when the recall's strength
    is above it (or it is unset), with the strength the entity would have after
    `strength_bound_recalls` more recalls, and otherwise left, so that the row's indexed
    columns do not change and its new version can be a HOT update (no index entries)."""
    nodes = sorted((n for n in cache.nodes.values() if n.reinforcements and not n.new),
                   key=lambda n: _id(n))
    if not nodes:
        return
    rows = _execute(
        "SELECT id, base, half_life_days, valence, pos, neg, retrieval_count, route, pinned, "
        "last_reinforced_at, strength FROM memory_entity WHERE id = ANY(%b::bigint[]) "
        "AND status = 'active' ORDER BY id FOR UPDATE",
        [[n.id for n in nodes]], binary=True)
    if not rows:
        return
    by_id = {n.id: n for n in nodes}
    latest = max(n.reinforced_at for n in nodes if n.reinforced_at)
    values = []
    for pk, base, half, valence, pos, neg, count, route, pinned, last, stored in rows:
        node = by_id[pk]
        assert node.reinforced_at is not None
        count += node.reinforcements
        last = max(last, node.reinforced_at)
        state = EntityState(base=base, half_life_days=half, valence=valence, pos=pos, neg=neg,
                            retrieval_count=count, route=route, pinned=pinned)
        strength = entity_strength(state, last_reinforced_at=last, now=latest, config=config)
        bound = None if stored is not None and strength <= stored else float_text(
            entity_strength(_with_headroom(state, config), last_reinforced_at=last,
                            now=latest, config=config))
        values.append((pk, node.reinforcements, node.reinforced_at, bound))
    _execute(
        "UPDATE memory_entity AS e SET retrieval_count = e.retrieval_count + v.k, "
        "last_reinforced_at = GREATEST(e.last_reinforced_at, v.t), "
        "strength = COALESCE(v.b, e.strength), "
        "strength_evaluated_at = CASE WHEN v.b IS NULL THEN e.strength_evaluated_at ELSE %s END "
        "FROM " + json_rows("id bigint", "k int", "t timestamptz", "b float8")
        + " AS v WHERE e.id = v.id",
        [latest, json_param(values)])


def _mentions(cache: GraphCache, writes: ChunkWrites) -> None:
    if not writes.mentions:
        return
    rows = [(cache.nodes[k].id, obs, role, flags[0], flags[1])
            for (k, obs, role), flags in writes.mentions.items()]
    _execute(
        "INSERT INTO memory_entitymention (entity_id, observation_id, role, reinforced, at) "
        "SELECT * FROM " + json_rows("e bigint", "o varchar", "r varchar", "b bool",
                                     "t timestamptz") + " AS v "
        "ON CONFLICT (entity_id, observation_id, role) DO UPDATE SET "
        "reinforced = memory_entitymention.reinforced OR EXCLUDED.reinforced",
        [json_param(rows)])


def _relations(cache: GraphCache, writes: ChunkWrites, config: DecayConfig) -> None:
    if not writes.edges:
        return
    edges = sorted(writes.edges.items())
    found = _execute(
        "INSERT INTO memory_relation AS r (source_id, target_id, relation_type, relation_class,"
        " last_reinforced_at, evidence_count, created_at) "
        "SELECT * FROM " + json_rows("s bigint", "t bigint", "rt varchar", "rc varchar",
                                     "last timestamptz", "k int", "first timestamptz")
        + " AS v ON CONFLICT (source_id, target_id, relation_type) DO UPDATE SET "
        "evidence_count = r.evidence_count + EXCLUDED.evidence_count, "
        "last_reinforced_at = GREATEST(r.last_reinforced_at, EXCLUDED.last_reinforced_at), "
        "created_at = LEAST(r.created_at, EXCLUDED.created_at) "
        "RETURNING r.id, r.source_id, r.target_id, r.relation_type, (r.xmax = 0)",
        [json_param((cache.nodes[s].id, cache.nodes[t].id, rt, config.graph.class_of(rt),
                     e.last, e.count, e.first) for (s, t, rt), e in edges)])
    ids = {(s, t, rt): (pk, inserted) for pk, s, t, rt, inserted in found}
    evidence: list[tuple[int, str]] = []
    for (s, t, rt), edge in edges:
        pk, inserted = ids[(cache.nodes[s].id, cache.nodes[t].id, rt)]
        evidence += [(pk, obs) for obs in sorted(edge.observations)]
        if inserted and edge.first is not None:
            for key in (s, t):
                if cache.nodes[key].status == "active":
                    writes.regenerate(key, "relations", at=edge.first)
    _execute(
        "INSERT INTO memory_relationevidence (relation_id, observation_id) "
        "SELECT * FROM " + json_rows("r bigint", "o varchar") + " AS v ON CONFLICT DO NOTHING",
        [json_param(evidence)])


def _fact_id(fact: FactRow) -> int:
    assert fact.id is not None, f"{fact.claim} was not written"
    return fact.id


_FACT_INSERT = (
    "INSERT INTO memory_fact (entity_id, claim, lemma_key, lemmas, polarity, scope, language, "
    "status, evidence_count, first_seen_at, last_seen_at, observation_id, event_ids, "
    "created_at) "
    "SELECT v.entity, v.claim, v.lemma_key, "
    "ARRAY(SELECT jsonb_array_elements_text(v.lemmas))::varchar[], v.polarity, v.scope, "
    "v.language, v.status, v.k, v.first, v.last, v.observation, "
    "ARRAY(SELECT jsonb_array_elements_text(v.events))::varchar[], %s FROM "
    + json_rows("entity bigint", "claim varchar", "lemma_key varchar", "lemmas jsonb",
                "polarity smallint", "scope varchar", "language varchar", "status varchar",
                "k int", "first timestamptz", "last timestamptz", "observation varchar",
                "events jsonb")
    + " AS v RETURNING id")


def _facts(cache: GraphCache, writes: ChunkWrites) -> None:
    if writes.new_facts:
        made = _execute(_FACT_INSERT, [clock.now(), json_param(
            (_id(cache.nodes[f.entity_key]), f.claim, f.lemma_key, sorted(f.lemmas), f.polarity,
             f.scope, f.language, f.status, 1 + f.evidence_added, f.first_seen_at,
             f.last_seen_at, f.observation_id, list(f.event_ids)) for f in writes.new_facts)])
        for row, (pk,) in zip(writes.new_facts, made, strict=True):
            row.id = pk
    touched = list(writes.touched_facts.values())
    if touched:
        _execute(
            "UPDATE memory_fact AS f SET evidence_count = f.evidence_count + v.k, "
            "first_seen_at = LEAST(f.first_seen_at, v.first), "
            "last_seen_at = GREATEST(f.last_seen_at, v.last), "
            "status = CASE WHEN v.changed THEN v.status ELSE f.status END, scope = v.scope "
            "FROM " + json_rows("id bigint", "k int", "first timestamptz", "last timestamptz",
                                "changed bool", "status varchar", "scope varchar")
            + " AS v WHERE f.id = v.id",
            [json_param((f.id, f.evidence_added, f.first_seen_at, f.last_seen_at,
                         f.status_changed, f.status, f.scope) for f in touched)])
    if writes.fact_evidence:
        _execute(
            "INSERT INTO memory_factevidence (fact_id, observation_id) "
            "SELECT * FROM " + json_rows("f bigint", "o varchar") + " AS v "
            "ON CONFLICT DO NOTHING",
            [json_param((f.id, o) for f, o in writes.fact_evidence)])
    Conflict.objects.bulk_create([
        Conflict(entity_id=_id(cache.nodes[c.entity_key]), existing_id=_fact_id(c.existing),
                 new_id=_fact_id(c.new), jaccard=c.jaccard, observation_id=c.observation_id,
                 created_at=c.created_at)
        for c in writes.conflicts], ignore_conflicts=True)


def _bookkeeping(cache: GraphCache) -> None:
    if cache.new_vocabulary:
        terms = sorted(cache.new_vocabulary)
        _execute(
            "INSERT INTO memory_vocabularyterm (namespace, lemma) "
            "SELECT * FROM " + json_rows("ns varchar", "lemma varchar") + " AS v "
            "ON CONFLICT DO NOTHING",
            [json_param((ns, lemma[:100]) for ns, lemma in terms)])
    if cache.pair_increments:
        pairs = sorted(cache.pair_increments.items())
        _execute(
            "INSERT INTO memory_pairfamiliarity AS p (category, namespace, retained) "
            "SELECT * FROM " + json_rows("c varchar", "n varchar", "k int") + " AS v "
            "ON CONFLICT (category, namespace) DO UPDATE SET "
            "retained = p.retained + EXCLUDED.retained",
            [json_param((c, n, k) for (c, n), k in pairs)])


def _observations(cache: GraphCache, writes: ChunkWrites) -> None:
    outcomes = writes.outcomes
    _execute(
        "UPDATE memory_observation AS o SET status = v.status, schema_fit = v.fit, "
        "error = v.error, retained_at = %s, attempts = o.attempts + %s FROM "
        + json_rows("id varchar", "status varchar", "fit float8", "error text")
        + " AS v WHERE o.id = v.id",
        [clock.now(), int(writes.attempted),
         json_param((o.observation_id, o.status, float_text(o.schema_fit), o.error)
                    for o in outcomes)])
    items = ReviewItem.objects.bulk_create([
        ReviewItem(observation_id=r.observation_id, schema_fit=r.schema_fit,
                   created_at=r.created_at) for r in writes.reviews])
    through = ReviewItem.entities.through
    through.objects.bulk_create([
        through(reviewitem_id=item.pk, entity_id=cache.nodes[key].id)
        for item, review in zip(items, writes.reviews, strict=True)
        for key in review.entity_keys])


def _regenerations(cache: GraphCache, writes: ChunkWrites) -> None:
    rows = [(cache.nodes[key].id, sorted(entry.reasons), entry.strength, entry.at)
            for key, entry in sorted(writes.regenerations.items())
            if cache.nodes[key].id is not None and cache.nodes[key].status == "active"]
    if not rows:
        return
    _execute(
        "INSERT INTO memory_regenerationrequest AS r (entity_id, reasons, strength, "
        "requested_at) "
        "SELECT v.id, string_to_array(v.reasons, ','), v.strength, v.at FROM "
        + json_rows("id bigint", "reasons text", "strength float8", "at timestamptz")
        + " AS v "
        "ON CONFLICT (entity_id) WHERE consumed_at IS NULL DO UPDATE SET "
        "reasons = ARRAY(SELECT DISTINCT unnest(r.reasons || EXCLUDED.reasons) ORDER BY 1), "
        "strength = COALESCE(EXCLUDED.strength, r.strength), "
        "requested_at = GREATEST(r.requested_at, EXCLUDED.requested_at)",
        [json_param((r[0], ",".join(r[1]), float_text(r[2]), r[3]) for r in rows)])


def chunk_flush(*, cache: GraphCache, writes: ChunkWrites, config: DecayConfig) -> None:
    _entities(cache, writes, config)
    _reinforcements(cache, config)
    _mentions(cache, writes)
    _relations(cache, writes, config)
    _facts(cache, writes)
    memories_write(cache=cache, writes=writes, config=config)
    _bookkeeping(cache)
    _observations(cache, writes)
    _regenerations(cache, writes)
