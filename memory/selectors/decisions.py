"""Reads for decisions (memory.services.decisions): the decision events in commit order, the
keys a decision names its targets by, and the rows those keys lead to after a rebuild."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from django.db.models import Q

from memory.errors import NotFound
from memory.models import Conflict, EntityMerge, Fact, MemoryEvent, ReviewItem
from memory.models.events import DECISION_TYPE

DECISION_SOURCES = Q(source__startswith="operator:") | Q(source__startswith="api:")


def decision_events() -> Iterator[MemoryEvent]:
    """Every decision of the raw log, in commit order (txid, id)."""
    events = MemoryEvent.objects.filter(DECISION_SOURCES, type=DECISION_TYPE)
    return events.order_by("txid", "id").iterator(chunk_size=500)


def claim_key(fact: Fact) -> list[Any]:
    """A claim as a rebuild finds it again: [entity key, lemma key, polarity]."""
    return [fact.entity.key, fact.lemma_key, fact.polarity]


def review_item_of(*, observation: str) -> int:
    """The review item of the observation with this dedup key."""
    found = ReviewItem.objects.filter(observation__dedup_key=observation).values_list(
        "pk", flat=True).first()
    if found is None:
        raise NotFound(f"no review item for observation {observation!r}")
    return found


def _claim(prefix: str, claim: Sequence[Any]) -> Q:
    entity, lemma_key, polarity = claim
    return Q(**{f"{prefix}__entity__key": entity, f"{prefix}__lemma_key": lemma_key,
                f"{prefix}__polarity": polarity})


def conflict_of(*, existing: Sequence[Any], new: Sequence[Any]) -> int:
    """The conflict between these two claims (see `claim_key`)."""
    found = Conflict.objects.filter(_claim("existing", existing) & _claim("new", new)
                                    ).values_list("pk", flat=True).first()
    if found is None:
        raise NotFound("no conflict between these claims")
    return found


def merge_unsplit(*, merged: str, survivor: str) -> int:
    """The merge of `merged` into `survivor` that is not split (there is at most one)."""
    found = EntityMerge.objects.filter(merged__key=merged, survivor__key=survivor,
                                       split_at=None).values_list("pk", flat=True).first()
    if found is None:
        raise NotFound(f"no merge of {merged!r} into {survivor!r} to split")
    return found
