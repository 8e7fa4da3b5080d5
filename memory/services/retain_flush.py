"""Writing one chunk of the Retain Job: a few set-based statements, in the chunk's
transaction (with the observations' status change: all of it commits or none).

Existing rows are changed by increments (retrieval_count + k, evidence_count + k,
GREATEST of times), never overwritten with values read earlier, so a concurrent writer
(a recall, a feedback) loses nothing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from django.db import connection

from memory import clock
from memory.config import DecayConfig
from memory.decay.formulas import EntityState, entity_strength, strength_after
from memory.models import (
    Conflict,
    Entity,
    EntityEmbedding,
    Fact,
    ReviewItem,
)
from memory.services.memories_consolidate import memories_write
from memory.services.retain_graph import FactRow, GraphCache, Node
from memory.services.retain_writes import ChunkWrites


def _execute(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def _id(node: Node) -> int:
    assert node.id is not None, f"{node.key} was not written"
    return node.id


def _new_entity(node: Node, config: DecayConfig) -> Entity:
    namespace = node.namespace
    state = EntityState(base=node.base, half_life_days=node.half_life_days, valence=node.valence,
                        retrieval_count=node.retrieval_count, route=node.route, pinned=node.pinned)
    return Entity(
        namespace=namespace, slug=node.key.rpartition(":")[2], key=node.key,
        display_name=node.display_name, aliases=[*node.aliases, *node.aliases_added],
        memory_type=namespace.memory_type, referent=namespace.referent, base=node.base,
        half_life_days=node.half_life_days, valence=node.valence,
        retrieval_count=node.retrieval_count, last_reinforced_at=node.last_reinforced_at,
        pinned=node.pinned, route=node.route, status=node.status, created_at=node.created_at,
        strength=strength_after(state, dt_days=0.0, config=config),
        strength_evaluated_at=node.last_reinforced_at,
    )


def _entities(cache: GraphCache, writes: ChunkWrites, config: DecayConfig) -> None:
    nodes = [cache.nodes[key] for key in writes.created]
    made = Entity.objects.bulk_create([_new_entity(node, config) for node in nodes])
    for node, entity in zip(nodes, made, strict=True):
        node.id = entity.pk
        cache.by_id[entity.pk] = node
    EntityEmbedding.objects.bulk_create([
        EntityEmbedding(entity_id=_id(node), namespace=node.namespace,
                        text=node.display_name, dedup=node.dedup) for node in nodes])
    renamed = [{"id": n.id, "names": n.aliases_added} for n in cache.nodes.values()
               if n.aliases_added and not n.new]
    if renamed:
        _execute(
            "UPDATE memory_entity AS e SET aliases = e.aliases || ARRAY("
            "SELECT jsonb_array_elements_text(v.names))::varchar[] "
            "FROM jsonb_to_recordset(%s::jsonb) AS v(id bigint, names jsonb) WHERE e.id = v.id",
            [orjson.dumps(renamed).decode()])
    if cache.new_aliases:
        rows = [(cache.namespaces[ns].pk, name, cache.nodes[key].id)
                for (ns, name), key in cache.new_aliases.items()]
        _execute(
            "INSERT INTO memory_entityalias (namespace_id, normalized, entity_id) "
            "SELECT * FROM unnest(%s::bigint[], %s::varchar[], %s::bigint[]) "
            "ON CONFLICT (namespace_id, normalized) DO NOTHING",
            [[r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]])


def _reinforcements(cache: GraphCache, config: DecayConfig) -> None:
    """Recalls by increment; the strength they produce is then computed from the values the
    rows hold now (locked by this transaction) and stored with them."""
    nodes = [n for n in cache.nodes.values() if n.reinforcements and not n.new]
    if not nodes:
        return
    rows = _execute(
        "UPDATE memory_entity AS e SET retrieval_count = e.retrieval_count + v.k, "
        "last_reinforced_at = GREATEST(e.last_reinforced_at, v.t) "
        "FROM unnest(%s::bigint[], %s::int[], %s::timestamptz[]) AS v(id, k, t) "
        "WHERE e.id = v.id AND e.status = 'active' "
        "RETURNING e.id, e.base, e.half_life_days, e.valence, e.pos, e.neg, "
        "e.retrieval_count, e.route, e.pinned, e.last_reinforced_at",
        [[n.id for n in nodes], [n.reinforcements for n in nodes],
         [n.reinforced_at for n in nodes]])
    latest = max(n.reinforced_at for n in nodes if n.reinforced_at)
    strengths = [
        entity_strength(EntityState(base=base, half_life_days=half, valence=valence, pos=pos,
                                    neg=neg, retrieval_count=count, route=route, pinned=pinned),
                        last_reinforced_at=last, now=latest, config=config)
        for _, base, half, valence, pos, neg, count, route, pinned, last in rows]
    _execute(
        "UPDATE memory_entity AS e SET strength = v.s, strength_evaluated_at = %s "
        "FROM unnest(%s::bigint[], %s::float8[]) AS v(id, s) WHERE e.id = v.id",
        [latest, [row[0] for row in rows], strengths])


def _mentions(cache: GraphCache, writes: ChunkWrites) -> None:
    if not writes.mentions:
        return
    rows = [(cache.nodes[k].id, obs, role, flags[0], flags[1])
            for (k, obs, role), flags in writes.mentions.items()]
    _execute(
        "INSERT INTO memory_entitymention (entity_id, observation_id, role, reinforced, at) "
        "SELECT * FROM unnest(%s::bigint[], %s::varchar[], %s::varchar[], %s::bool[], "
        "%s::timestamptz[]) ON CONFLICT (entity_id, observation_id, role) DO UPDATE SET "
        "reinforced = memory_entitymention.reinforced OR EXCLUDED.reinforced",
        [list(column) for column in zip(*rows, strict=True)])


def _relations(cache: GraphCache, writes: ChunkWrites, config: DecayConfig) -> None:
    if not writes.edges:
        return
    edges = sorted(writes.edges.items())
    found = _execute(
        "INSERT INTO memory_relation AS r (source_id, target_id, relation_type, relation_class,"
        " last_reinforced_at, evidence_count, created_at) "
        "SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::varchar[], %s::varchar[], "
        "%s::timestamptz[], %s::int[], %s::timestamptz[]) "
        "ON CONFLICT (source_id, target_id, relation_type) DO UPDATE SET "
        "evidence_count = r.evidence_count + EXCLUDED.evidence_count, "
        "last_reinforced_at = GREATEST(r.last_reinforced_at, EXCLUDED.last_reinforced_at), "
        "created_at = LEAST(r.created_at, EXCLUDED.created_at) "
        "RETURNING r.id, r.source_id, r.target_id, r.relation_type, (r.xmax = 0)",
        [[cache.nodes[s].id for (s, _, _), _ in edges],
         [cache.nodes[t].id for (_, t, _), _ in edges],
         [rt for (_, _, rt), _ in edges],
         [config.graph.class_of(rt) for (_, _, rt), _ in edges],
         [e.last for _, e in edges], [e.count for _, e in edges], [e.first for _, e in edges]])
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
        "SELECT * FROM unnest(%s::bigint[], %s::varchar[]) ON CONFLICT DO NOTHING",
        [[r for r, _ in evidence], [o for _, o in evidence]])


def _fact_id(fact: FactRow) -> int:
    assert fact.id is not None, f"{fact.claim} was not written"
    return fact.id


def _facts(cache: GraphCache, writes: ChunkWrites) -> None:
    made = Fact.objects.bulk_create([
        Fact(entity_id=_id(cache.nodes[f.entity_key]), claim=f.claim, lemma_key=f.lemma_key,
             lemmas=sorted(f.lemmas), polarity=f.polarity, scope=f.scope, language=f.language,
             status=f.status, evidence_count=1 + f.evidence_added,
             first_seen_at=f.first_seen_at, last_seen_at=f.last_seen_at,
             observation_id=f.observation_id, event_ids=list(f.event_ids))
        for f in writes.new_facts])
    for row, fact in zip(writes.new_facts, made, strict=True):
        row.id = fact.pk
    touched = list(writes.touched_facts.values())
    if touched:
        _execute(
            "UPDATE memory_fact AS f SET evidence_count = f.evidence_count + v.k, "
            "first_seen_at = LEAST(f.first_seen_at, v.first), "
            "last_seen_at = GREATEST(f.last_seen_at, v.last), "
            "status = CASE WHEN v.changed THEN v.status ELSE f.status END, scope = v.scope "
            "FROM unnest(%s::bigint[], %s::int[], %s::timestamptz[], %s::timestamptz[], "
            "%s::bool[], %s::varchar[], %s::varchar[]) "
            "AS v(id, k, first, last, changed, status, scope) "
            "WHERE f.id = v.id",
            [[f.id for f in touched], [f.evidence_added for f in touched],
             [f.first_seen_at for f in touched], [f.last_seen_at for f in touched],
             [f.status_changed for f in touched], [f.status for f in touched],
             [f.scope for f in touched]])
    if writes.fact_evidence:
        _execute(
            "INSERT INTO memory_factevidence (fact_id, observation_id) "
            "SELECT * FROM unnest(%s::bigint[], %s::varchar[]) ON CONFLICT DO NOTHING",
            [[f.id for f, _ in writes.fact_evidence], [o for _, o in writes.fact_evidence]])
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
            "SELECT * FROM unnest(%s::varchar[], %s::varchar[]) ON CONFLICT DO NOTHING",
            [[ns for ns, _ in terms], [lemma[:100] for _, lemma in terms]])
    if cache.pair_increments:
        pairs = sorted(cache.pair_increments.items())
        _execute(
            "INSERT INTO memory_pairfamiliarity AS p (category, namespace, retained) "
            "SELECT * FROM unnest(%s::varchar[], %s::varchar[], %s::int[]) "
            "ON CONFLICT (category, namespace) DO UPDATE SET "
            "retained = p.retained + EXCLUDED.retained",
            [[c for (c, _), _ in pairs], [n for (_, n), _ in pairs], [k for _, k in pairs]])


def _observations(cache: GraphCache, writes: ChunkWrites) -> None:
    outcomes = writes.outcomes
    _execute(
        "UPDATE memory_observation AS o SET status = v.status, schema_fit = v.fit, "
        "error = v.error, retained_at = %s "
        "FROM unnest(%s::varchar[], %s::varchar[], %s::float8[], %s::text[]) "
        "AS v(id, status, fit, error) WHERE o.id = v.id",
        [clock.now(), [o.observation_id for o in outcomes], [o.status for o in outcomes],
         [o.schema_fit for o in outcomes], [o.error for o in outcomes]])
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
        "SELECT v.id, string_to_array(v.reasons, ','), v.strength, v.at "
        "FROM unnest(%s::bigint[], %s::text[], %s::float8[], %s::timestamptz[]) "
        "AS v(id, reasons, strength, at) "
        "ON CONFLICT (entity_id) WHERE consumed_at IS NULL DO UPDATE SET "
        "reasons = ARRAY(SELECT DISTINCT unnest(r.reasons || EXCLUDED.reasons) ORDER BY 1), "
        "strength = COALESCE(EXCLUDED.strength, r.strength), "
        "requested_at = GREATEST(r.requested_at, EXCLUDED.requested_at)",
        [[r[0] for r in rows], [",".join(r[1]) for r in rows], [r[2] for r in rows],
         [r[3] for r in rows]])


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
