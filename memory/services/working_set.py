"""Writes of the per-session working sets: register, recall, step (docs/working-set.md).

Every call carries the session's turn. The session row is locked first, so calls on one
session apply one at a time; the session is then advanced to that turn (the engine's
`step`: items whose retention fell below the threshold are evicted, in SQL, from the
`evicts_at_turn` the engine computed when they were last touched), and the call applies.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction

from memory import clock
from memory.errors import NotFound
from memory.models.working_set import WorkingItem, WorkingSession
from memory.selectors.working_set import WorkingItemView, working_item_view, working_set_size
from memory.working_set.base import TurnWentBackwards
from memory.working_set.engine import eviction_turn, reinforced_stability

__all__ = ["SessionNotFound", "TurnWentBackwards", "WorkingSetChange", "working_item_recall",
           "working_item_register", "working_set_step"]


class SessionNotFound(NotFound):
    """No working set exists for this session (nothing was ever registered in it)."""

    default_message = "No working set for this session: register an item first."


@dataclass(frozen=True)
class WorkingSetChange:
    turn: int
    evicted: list[str]
    working_set_size: int
    item: WorkingItemView | None = None
    created: bool = False
    recalled: bool = False


def _session_locked(*, owner: User, key: str, create: bool) -> WorkingSession:
    if create:
        WorkingSession.objects.get_or_create(owner=owner, key=key)
    session = WorkingSession.objects.select_for_update().filter(owner=owner, key=key).first()
    if session is None:
        raise SessionNotFound()
    return session


def _advance(*, session: WorkingSession, turn: int) -> list[str]:
    """Move the session to `turn`; evict what decayed by then; return the evicted ids."""
    if turn < session.turn:
        reached = session.turn
        raise TurnWentBackwards(fields={
            "turn": f"Turn {turn} is before turn {reached}, which this session has already reached."
        })
    due = session.items.filter(evicted_turn__isnull=True, evicts_at_turn__lte=turn)
    evicted = list(due.order_by("evicts_at_turn", "mem_id").values_list("mem_id", flat=True))
    if evicted:
        due.update(evicted_turn=turn)
    session.turn, session.updated_at = turn, clock.now()
    session.save(update_fields=["turn", "updated_at"])
    return evicted


def _touch(*, item: WorkingItem, session: WorkingSession, turn: int) -> None:
    item.last_touched_turn = turn
    item.evicts_at_turn = eviction_turn(last_touched=turn, stability=item.stability,
                                        eviction_threshold=session.eviction_threshold)


def _change(*, session: WorkingSession, evicted: list[str], item: WorkingItem | None = None,
            created: bool = False, recalled: bool = False) -> WorkingSetChange:
    view = None if item is None else working_item_view(item=item, turn=session.turn)
    return WorkingSetChange(turn=session.turn, evicted=evicted, item=view, created=created,
                            recalled=recalled, working_set_size=working_set_size(session=session))


@transaction.atomic
def working_set_step(*, owner: User, key: str, turn: int) -> WorkingSetChange:
    session = _session_locked(owner=owner, key=key, create=False)
    return _change(session=session, evicted=_advance(session=session, turn=turn))


@transaction.atomic
def working_item_register(*, owner: User, key: str, mem_id: str, content: str,
                          turn: int, is_foundational: bool = False) -> WorkingSetChange:
    """Add `mem_id` at `turn` (stability = the session's baseline, one use). An item still
    present is left as it is (`created` False); an evicted one starts over."""
    session = _session_locked(owner=owner, key=key, create=True)
    evicted = _advance(session=session, turn=turn)
    item = session.items.filter(mem_id=mem_id).first()
    if item is not None and item.evicted_turn is None:
        return _change(session=session, evicted=evicted, item=item)
    item = item or WorkingItem(session=session, mem_id=mem_id)
    item.content, item.is_foundational = content, is_foundational
    item.stability, item.recall_count = session.baseline_stability, 1
    item.registered_turn, item.evicted_turn = turn, None
    _touch(item=item, session=session, turn=turn)
    item.save()
    return _change(session=session, evicted=evicted, item=item, created=True)


@transaction.atomic
def working_item_recall(*, owner: User, key: str, mem_id: str,
                        turn: int) -> WorkingSetChange:
    """Use `mem_id` again at `turn`: False if it is not present; else one more use and
    stability *= 1 + ln(1 + uses)."""
    session = _session_locked(owner=owner, key=key, create=False)
    evicted = _advance(session=session, turn=turn)
    item = session.items.filter(mem_id=mem_id, evicted_turn__isnull=True).first()
    if item is None:
        return _change(session=session, evicted=evicted)
    item.recall_count += 1
    item.stability = reinforced_stability(item.stability, item.recall_count)
    _touch(item=item, session=session, turn=turn)
    item.save(update_fields=["recall_count", "stability", "last_touched_turn", "evicts_at_turn"])
    return _change(session=session, evicted=evicted, item=item, recalled=True)
