"""Pins and feedback as decisions: recorded in the raw log (memory.services.decisions), then
written through memory.services.entities (the columns and the strength they produce)."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from memory.config import DecayConfig
from memory.errors import Invalid, NotFound
from memory.models import Entity
from memory.services import entities
from memory.services.decisions import Decider, Subtype, decider_of, decision_record
from memory.services.entities import Outcome


def _entity_id(key: str) -> int:
    """The entity with this key, or the one it was merged into (and so on)."""
    row = Entity.objects.filter(key=key).values_list("pk", "merged_into_id").first()
    if row is None:
        raise NotFound(f"no entity with key {key!r}", fields={"key": "No such entity."})
    seen = {row[0]}
    while row[1] is not None and row[1] not in seen:
        seen.add(row[1])
        row = Entity.objects.values_list("pk", "merged_into_id").get(pk=row[1])
    return row[0]


def entity_pin(*, key: str, by: Decider | str, now: datetime | None = None) -> Entity:
    """Pinned: infinite strength, exempt from decay, ranked above everything unpinned."""
    with transaction.atomic():
        decision_record(by=decider_of(by), subtype=Subtype.PIN, targets={"entity": key},
                        occurred_at=now)
        return entities.entity_pin(entity_id=_entity_id(key), now=now)


def entity_unpin(*, key: str, by: Decider | str, now: datetime | None = None,
                 config: DecayConfig | None = None) -> Entity:
    """Back to decaying from its last reinforcement, as if it had never been pinned."""
    with transaction.atomic():
        decision_record(by=decider_of(by), subtype=Subtype.UNPIN, targets={"entity": key},
                        occurred_at=now)
        return entities.entity_unpin(entity_id=_entity_id(key), now=now, config=config)


def entity_feedback(*, key: str, outcome: str, by: Decider | str, now: datetime | None = None,
                    config: DecayConfig | None = None) -> Entity:
    """An outcome reported on the entity (`positive` or `negative`): pos or neg + 1."""
    if outcome not in Outcome.ALL:
        raise Invalid(fields={"outcome": f"Must be one of {', '.join(Outcome.ALL)}."})
    with transaction.atomic():
        decision_record(by=decider_of(by), subtype=Subtype.FEEDBACK,
                        targets={"entity": key, "outcome": outcome}, occurred_at=now)
        return entities.entity_feedback(entity_id=_entity_id(key), outcome=outcome, now=now,
                                        config=config)
