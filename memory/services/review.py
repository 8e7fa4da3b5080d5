"""The operator's review queues (docs/retain.md): dark matter and conflicts.

Dark matter: accept it into the graph as normal (its entities become active and the
observation is applied again on the normal path: relations, facts with conflict
detection, reinforcement of what it mentions), keep it quarantined, or merge its entity into
an existing one (then apply it as normal). Conflicts: keep the existing claim, keep the new
one, keep both as scoped, or reject the new one.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from memory import clock
from memory.config import DecayConfig, config_get
from memory.errors import Refused
from memory.models import (
    Conflict,
    ConflictStatus,
    DedupState,
    Entity,
    EntityEmbedding,
    EntityStatus,
    Fact,
    FactEvidence,
    FactStatus,
    MergeReason,
    Observation,
    ObservationStatus,
    ReviewItem,
    ReviewStatus,
    Route,
)
from memory.selectors.decisions import claim_key
from memory.services.decisions import Decider, Subtype, decider_of, decision_record
from memory.services.entities import entity_strength_store
from memory.services.locks import retain_lock
from memory.services.merges import entity_merge
from memory.services.retain_chunk import chunk_retain
from memory.services.retain_steps import Replay, matches_any


class ReviewRefused(Refused):
    """The item was already resolved, or the action makes no sense for it."""


def _open_item(item_id: int) -> ReviewItem:
    item = ReviewItem.objects.select_for_update().get(pk=item_id)
    if item.status != ReviewStatus.OPEN:
        raise ReviewRefused(f"this item was already resolved ({item.get_status_display()})")
    return item


def _decided(item: ReviewItem, by: Decider, subtype: str, now: datetime | None,
             **more: str) -> None:
    observation = Observation.objects.values_list("dedup_key", flat=True).get(
        pk=item.observation_id)
    decision_record(by=by, subtype=subtype, targets={"observation": observation, **more},
                    occurred_at=now)


def _close(item: ReviewItem, status: str, by: Decider, now: datetime | None,
           merged_into: Entity | None = None) -> ReviewItem:
    item.status, item.resolved_at, item.resolved_by = status, now or clock.now(), by.name[:150]
    item.merged_into = merged_into
    item.save(update_fields=["status", "resolved_at", "resolved_by", "merged_into"])
    return item


def _activate(entities: list[Entity], config: DecayConfig) -> None:
    for entity in entities:
        alias_only = matches_any(entity.namespace.path, config.retain.dedup.alias_only)
        EntityEmbedding.objects.filter(entity_id=entity.pk).update(
            dedup=DedupState.SKIPPED if alias_only else DedupState.PENDING)
    Entity.objects.filter(pk__in=[e.pk for e in entities]).update(
        status=EntityStatus.ACTIVE, route=Route.NORMAL)
    entity_strength_store(queryset=Entity.objects.filter(pk__in=[e.pk for e in entities]),
                          config=config)


def _apply_as_normal(item: ReviewItem, entities: list[Entity], config: DecayConfig) -> None:
    observation = Observation.objects.select_for_update().get(pk=item.observation_id)
    evidenced = {(f.fact.entity.key, f.fact.lemma_key, f.fact.polarity)
                 for f in FactEvidence.objects.filter(observation=observation)
                 .select_related("fact__entity")}
    replay = Replay(route=Route.NORMAL, skip_reinforcing=frozenset(e.key for e in entities),
                    evidenced_facts=frozenset(evidenced))
    chunk_retain([observation], config=config, replay=replay)


def review_accept(*, item_id: int, by: Decider | str = "", now: datetime | None = None,
                  config: DecayConfig | None = None) -> ReviewItem:
    """Dark matter into the graph, as if it had come through the normal path."""
    config, by = config or config_get(), decider_of(by)
    with retain_lock(), transaction.atomic():
        item = _open_item(item_id)
        _decided(item, by, Subtype.REVIEW_ACCEPT, now)
        entities = list(item.entities.filter(status=EntityStatus.QUARANTINED)
                        .select_related("namespace"))
        _activate(entities, config)
        _apply_as_normal(item, entities, config)
        return _close(item, ReviewStatus.ACCEPTED, by, now)


def review_keep(*, item_id: int, by: Decider | str = "",
                now: datetime | None = None) -> ReviewItem:
    """Keep it quarantined: it decays at half speed, unreinforced, out of recall."""
    by = decider_of(by)
    with retain_lock(), transaction.atomic():
        item = _open_item(item_id)
        _decided(item, by, Subtype.REVIEW_KEEP, now)
        return _close(item, ReviewStatus.KEPT_QUARANTINED, by, now)


def review_merge(*, item_id: int, into_key: str, by: Decider | str = "",
                 now: datetime | None = None, config: DecayConfig | None = None) -> ReviewItem:
    """Its (first) quarantined entity is an existing one: merge it there, apply as normal."""
    config, by = config or config_get(), decider_of(by)
    with retain_lock(), transaction.atomic():
        item = _open_item(item_id)
        _decided(item, by, Subtype.REVIEW_MERGE, now, into=into_key)
        target = Entity.objects.filter(key=into_key).first()
        if target is None or target.status != EntityStatus.ACTIVE:
            raise ReviewRefused(f"no active entity with key {into_key!r}")
        entities = list(item.entities.filter(status=EntityStatus.QUARANTINED)
                        .select_related("namespace").order_by("pk"))
        if not entities:
            raise ReviewRefused("this item has no quarantined entity left to merge")
        entity_merge(merged_id=entities[0].pk, survivor_id=target.pk,
                     reason=MergeReason.OPERATOR, config=config, now=now)
        _activate(entities[1:], config)
        _apply_as_normal(item, entities, config)
        return _close(item, ReviewStatus.MERGED, by, now, merged_into=target)


class Decision:
    KEEP_EXISTING = ConflictStatus.KEPT_EXISTING
    KEEP_NEW = ConflictStatus.KEPT_NEW
    KEEP_BOTH = ConflictStatus.KEPT_BOTH
    REJECT_NEW = ConflictStatus.REJECTED_NEW
    ALL = (KEEP_EXISTING, KEEP_NEW, KEEP_BOTH, REJECT_NEW)


# decision -> (the existing claim's status, the new one's); None: unchanged
_EFFECTS: dict[str, tuple[str | None, str]] = {
    Decision.KEEP_EXISTING: (FactStatus.ACTIVE, FactStatus.REJECTED),
    Decision.KEEP_NEW: (FactStatus.REJECTED, FactStatus.ACTIVE),
    Decision.KEEP_BOTH: (FactStatus.SCOPED, FactStatus.SCOPED),
    Decision.REJECT_NEW: (None, FactStatus.REJECTED),
}


def conflict_resolve(*, conflict_id: int, decision: str, by: Decider | str = "",
                     note: str = "", now: datetime | None = None) -> Conflict:
    """Resolve a conflict; a claim another open conflict still contests stays contested."""
    if decision not in Decision.ALL:
        raise ReviewRefused(f"decision must be one of {', '.join(Decision.ALL)}")
    by = decider_of(by)
    with retain_lock(), transaction.atomic():
        conflict = Conflict.objects.select_for_update(of=("self",)).select_related(
            "existing__entity", "new__entity").get(pk=conflict_id)
        if conflict.status != ConflictStatus.OPEN:
            raise ReviewRefused("this conflict was already resolved")
        decision_record(by=by, subtype=Subtype.CONFLICT_RESOLVE, occurred_at=now, targets={
            "existing": claim_key(conflict.existing), "new": claim_key(conflict.new),
            "decision": decision, "note": note})
        conflict.status, conflict.note = decision, note
        conflict.resolved_at, conflict.resolved_by = now or clock.now(), by.name[:150]
        conflict.save(update_fields=["status", "note", "resolved_at", "resolved_by"])
        for fact_id, status in zip((conflict.existing_id, conflict.new_id), _EFFECTS[decision],
                                   strict=True):
            _set_fact_status(fact_id, status)
    return conflict


def _set_fact_status(fact_id: int, status: str | None) -> None:
    if status is None:
        return
    still_open = Conflict.objects.filter(new_id=fact_id, status=ConflictStatus.OPEN).exists()
    if still_open and status != FactStatus.REJECTED:
        return
    Fact.objects.filter(pk=fact_id).update(status=status)


def review_counts() -> dict[str, int]:
    return {
        "dark_matter_open": ReviewItem.objects.filter(status=ReviewStatus.OPEN).count(),
        "conflicts_open": Conflict.objects.filter(status=ConflictStatus.OPEN).count(),
        "unhandled": Observation.objects.filter(status=ObservationStatus.UNHANDLED).count(),
        "failed": Observation.objects.filter(status=ObservationStatus.FAILED).count(),
    }
