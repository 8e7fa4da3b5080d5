"""Merging an entity into another, and splitting a wrong merge.

A merge keeps the survivor's history and adds the merged entity's: its names become the
survivor's aliases, its reinforcements add up (as if its mentions had been the
survivor's), its relations and facts move to the survivor (or add their evidence to the
survivor's equal ones). Nothing is deleted: the merged entity points at the survivor, and
the merge records what it moved so that the operator can split it again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Q

from memory import clock
from memory.config import DecayConfig, config_get
from memory.errors import Refused
from memory.models import (
    Conflict,
    ConflictStatus,
    DedupState,
    Entity,
    EntityEmbedding,
    EntityMerge,
    EntityStatus,
    Fact,
    FactStatus,
    MergeReason,
    Relation,
)
from memory.retain.text import jaccard, normalize
from memory.services.decisions import Decider, Subtype, decider_of, decision_record
from memory.services.entities import entity_strength_store
from memory.services.locks import retain_lock

LIVE = (FactStatus.ACTIVE, FactStatus.CONTESTED, FactStatus.SCOPED)


class MergeRefused(Refused):
    """The merge (or split) makes no sense: the message says why."""


@dataclass
class _Moves:
    relations_moved: list[list[Any]] = field(default_factory=list)
    relations_folded: list[dict[str, Any]] = field(default_factory=list)
    facts_moved: list[int] = field(default_factory=list)
    facts_folded: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[int] = field(default_factory=list)


def _iso(value: datetime) -> str:
    return value.isoformat()


def _fold_entity(merged: Entity, survivor: Entity) -> tuple[dict[str, Any], list[str]]:
    before = {"retrieval_count": survivor.retrieval_count, "pos": survivor.pos,
              "neg": survivor.neg, "last_reinforced_at": _iso(survivor.last_reinforced_at)}
    known = {normalize(n) for n in (survivor.display_name, *survivor.aliases)}
    added = []
    for name in (merged.display_name, *merged.aliases):
        if normalize(name) and normalize(name) not in known:
            known.add(normalize(name))
            added.append(name)
    survivor.retrieval_count += merged.retrieval_count
    survivor.pos += merged.pos
    survivor.neg += merged.neg
    survivor.last_reinforced_at = max(survivor.last_reinforced_at, merged.last_reinforced_at)
    survivor.aliases = [*survivor.aliases, *added]
    survivor.save(update_fields=["retrieval_count", "pos", "neg", "last_reinforced_at",
                                 "aliases", "updated_at"])
    before["retrieval_added"] = merged.retrieval_count
    before["last_reinforced_after"] = _iso(survivor.last_reinforced_at)
    return before, added


def _fold_into(row: Relation | Fact, twin: Relation | Fact, *, earliest: str,
               latest: str) -> dict[str, Any]:
    """Add `row` (the merged entity's relation or fact) to its equal `twin` (the survivor's):
    evidence adds up, the twin keeps the earliest `earliest` and the latest `latest`. Returns
    what a split needs to undo it (`_unfold_into`)."""
    folded = {"from": row.pk, "into": twin.pk, "evidence": row.evidence_count,
              "before": {name: _iso(getattr(twin, name)) for name in (earliest, latest)}}
    twin.evidence_count += row.evidence_count
    setattr(twin, earliest, min(getattr(twin, earliest), getattr(row, earliest)))
    setattr(twin, latest, max(getattr(twin, latest), getattr(row, latest)))
    twin.save(update_fields=["evidence_count", earliest, latest])
    return folded


def _unfold_into(twin: Relation | Fact, fold: dict[str, Any], *, earliest: str) -> None:
    """Take back the evidence a merge folded into `twin`, and its earliest time. Its latest
    stays: the survivor may have been reinforced since."""
    twin.evidence_count = max(1, twin.evidence_count - fold["evidence"])
    setattr(twin, earliest, datetime.fromisoformat(fold["before"][earliest]))
    twin.save(update_fields=["evidence_count", earliest])


def _fold_relations(merged: Entity, survivor: Entity, moves: _Moves) -> None:
    edges = Relation.objects.filter(Q(source=merged) | Q(target=merged)).order_by("id")
    for edge in edges:
        source = survivor.pk if edge.source_id == merged.pk else edge.source_id
        target = survivor.pk if edge.target_id == merged.pk else edge.target_id
        if source == target:
            continue  # an edge between the two names of one entity stays with the merged one
        twin = Relation.objects.filter(source_id=source, target_id=target,
                                       relation_type=edge.relation_type).first()
        if twin is None:
            ends = [end for end, old in (("source", edge.source_id), ("target", edge.target_id))
                    if old == merged.pk]
            Relation.objects.filter(pk=edge.pk).update(source_id=source, target_id=target)
            moves.relations_moved.append([edge.pk, ends])
            continue
        moves.relations_folded.append(
            _fold_into(edge, twin, earliest="created_at", latest="last_reinforced_at"))


def _fold_facts(merged: Entity, survivor: Entity, moves: _Moves, config: DecayConfig) -> None:
    for fact in Fact.objects.filter(entity=merged).order_by("first_seen_at", "id"):
        twin = Fact.objects.filter(entity=survivor, lemma_key=fact.lemma_key,
                                   polarity=fact.polarity).first()
        if twin is None:
            Fact.objects.filter(pk=fact.pk).update(entity=survivor)
            fact.entity = survivor
            moves.facts_moved.append(fact.pk)
            if fact.status in LIVE:
                moves.conflicts += _conflicts_of(fact, survivor, config)
            continue
        moves.facts_folded.append(
            _fold_into(fact, twin, earliest="first_seen_at", latest="last_seen_at"))


def _conflicts_of(fact: Fact, survivor: Entity, config: DecayConfig) -> list[int]:
    """A moved fact meets the survivor's opposite claims: the later-stated one is contested."""
    made = []
    opposite = Fact.objects.filter(entity=survivor, polarity=-fact.polarity, status__in=LIVE)
    for other in opposite.exclude(pk=fact.pk):
        overlap = jaccard(frozenset(fact.lemmas), frozenset(other.lemmas))
        if overlap < config.retain.conflict_jaccard:
            continue
        old, new = sorted((fact, other), key=lambda f: (f.first_seen_at, f.lemma_key))
        conflict, created = Conflict.objects.get_or_create(
            existing=old, new=new, defaults={
                "entity": survivor, "jaccard": overlap, "observation_id": new.observation_id,
                "created_at": new.first_seen_at})
        if created:
            made.append(conflict.pk)
            Fact.objects.filter(pk=new.pk).update(status=FactStatus.CONTESTED)
    return made


def entity_merge(*, merged_id: int, survivor_id: int, reason: str = MergeReason.OPERATOR,
                 similarity: float | None = None, config: DecayConfig | None = None,
                 now: datetime | None = None) -> EntityMerge:
    """Merge `merged_id` into `survivor_id` (see the module docstring)."""
    config = config or config_get()
    if merged_id == survivor_id:
        raise MergeRefused("an entity cannot be merged into itself")
    with transaction.atomic():
        rows = {e.pk: e for e in Entity.objects.select_for_update().filter(
            pk__in=[merged_id, survivor_id]).order_by("pk")}
        if len(rows) != 2:
            raise MergeRefused("no such entity")
        merged, survivor = rows[merged_id], rows[survivor_id]
        if EntityStatus.MERGED in (merged.status, survivor.status):
            raise MergeRefused("an entity already merged cannot take part in a merge")
        before, added = _fold_entity(merged, survivor)
        moves = _Moves()
        _fold_relations(merged, survivor, moves)
        _fold_facts(merged, survivor, moves, config)
        merge = EntityMerge.objects.create(
            merged=merged, survivor=survivor, reason=reason, similarity=similarity,
            merged_status=merged.status, aliases_added=added,
            moved={"entity": before, **moves.__dict__}, created_at=now or clock.now())
        Entity.objects.filter(pk=merged.pk).update(status=EntityStatus.MERGED,
                                                   merged_into=survivor)
        EntityEmbedding.objects.filter(entity_id=merged.pk).update(dedup=DedupState.DONE)
        entity_strength_store(queryset=Entity.objects.filter(pk=survivor.pk),
                              now=survivor.last_reinforced_at, config=config)
    return merge


def _unfold_entity(merge: EntityMerge, survivor: Entity) -> None:
    before = merge.moved.get("entity", {})
    survivor.retrieval_count = max(0, survivor.retrieval_count - before.get("retrieval_added", 0))
    if _iso(survivor.last_reinforced_at) == before.get("last_reinforced_after"):
        survivor.last_reinforced_at = datetime.fromisoformat(before["last_reinforced_at"])
    removed = {normalize(a) for a in merge.aliases_added}
    survivor.aliases = [a for a in survivor.aliases if normalize(a) not in removed]
    survivor.save(update_fields=["retrieval_count", "last_reinforced_at", "aliases",
                                 "updated_at"])


def _unfold_moves(merge: EntityMerge) -> None:
    moved = merge.moved
    for edge_id, ends in moved.get("relations_moved", []):
        changes = {f"{end}_id": merge.merged_id for end in ends}
        Relation.objects.filter(pk=edge_id).update(**changes)
    for fold in moved.get("relations_folded", []):
        _unfold_into(Relation.objects.get(pk=fold["into"]), fold, earliest="created_at")
    Fact.objects.filter(pk__in=moved.get("facts_moved", [])).update(entity_id=merge.merged_id)
    for fold in moved.get("facts_folded", []):
        _unfold_into(Fact.objects.get(pk=fold["into"]), fold, earliest="first_seen_at")
    for conflict in Conflict.objects.filter(pk__in=moved.get("conflicts", []),
                                            status=ConflictStatus.OPEN):
        conflict.status = ConflictStatus.WITHDRAWN
        conflict.save(update_fields=["status"])
        still = Conflict.objects.filter(new_id=conflict.new_id, status=ConflictStatus.OPEN)
        if not still.exists():
            Fact.objects.filter(pk=conflict.new_id, status=FactStatus.CONTESTED).update(
                status=FactStatus.ACTIVE)


def entity_merge_decide(*, merged_key: str, survivor_key: str, by: Decider | str,
                        now: datetime | None = None,
                        config: DecayConfig | None = None) -> EntityMerge:
    """An operator's (or an agent's) merge of one entity into another, by their keys."""
    by = decider_of(by)
    with retain_lock(), transaction.atomic():
        decision_record(by=by, subtype=Subtype.MERGE, occurred_at=now,
                        targets={"merged": merged_key, "survivor": survivor_key})
        ids = dict(Entity.objects.filter(key__in=[merged_key, survivor_key])
                   .values_list("key", "pk"))
        if merged_key not in ids or survivor_key not in ids:
            raise MergeRefused("no such entity")
        return entity_merge(merged_id=ids[merged_key], survivor_id=ids[survivor_key],
                            reason=MergeReason.OPERATOR, config=config, now=now)


def entity_merge_split(*, merge_id: int, by: Decider | str = "", now: datetime | None = None,
                       config: DecayConfig | None = None) -> Entity:
    """Undo a wrong merge: the merged entity is itself again, with what it brought. What the
    survivor learnt through the merged entity's names since stays with the survivor."""
    by = decider_of(by)
    with retain_lock(), transaction.atomic():
        merge = EntityMerge.objects.select_for_update(of=("self",)).select_related(
            "merged", "survivor").get(pk=merge_id)
        if merge.split_at is not None:
            raise MergeRefused("this merge was already split")
        decision_record(by=by, subtype=Subtype.SPLIT, occurred_at=now,
                        targets={"merged": merge.merged.key, "survivor": merge.survivor.key})
        survivor = Entity.objects.select_for_update().get(pk=merge.survivor_id)
        _unfold_entity(merge, survivor)
        _unfold_moves(merge)
        Entity.objects.filter(pk=merge.merged_id).update(status=merge.merged_status,
                                                         merged_into=None)
        merge.split_at, merge.split_by = now or clock.now(), by.name[:150]
        merge.save(update_fields=["split_at", "split_by"])
        entity_strength_store(queryset=Entity.objects.filter(pk__in=[merge.merged_id,
                                                                    survivor.pk]),
                              now=now or clock.now(), config=config)
    return Entity.objects.get(pk=merge.merged_id)
