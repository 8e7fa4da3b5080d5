"""Reads of the per-session working sets (docs/working-set.md, over the API)."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User

from memory.models.working_set import WorkingItem, WorkingSession
from memory.working_set.engine import retention


@dataclass(frozen=True)
class WorkingItemView:
    mem_id: str
    content: str
    is_foundational: bool
    stability: float
    recall_count: int
    registered_turn: int
    last_touched_turn: int
    evicts_at_turn: int
    retention: float


@dataclass(frozen=True)
class WorkingSetView:
    session: str
    turn: int
    eviction_threshold: float
    baseline_stability: float
    working_set_size: int
    items: list[WorkingItemView]


def working_item_view(*, item: WorkingItem, turn: int) -> WorkingItemView:
    """The item as the session sees it at `turn` (its retention then)."""
    return WorkingItemView(
        mem_id=item.mem_id, content=item.content, is_foundational=item.is_foundational,
        stability=item.stability, recall_count=item.recall_count,
        registered_turn=item.registered_turn, last_touched_turn=item.last_touched_turn,
        evicts_at_turn=item.evicts_at_turn,
        retention=retention(turn - item.last_touched_turn, item.stability),
    )


def working_session_get(*, owner: User, key: str) -> WorkingSession | None:
    return WorkingSession.objects.filter(owner=owner, key=key).first()


def working_set_size(*, session: WorkingSession) -> int:
    return session.items.filter(evicted_turn__isnull=True).count()


def working_set_view(*, owner: User, key: str, limit: int) -> WorkingSetView | None:
    """What the session holds at its latest turn, most recently touched first."""
    session = working_session_get(owner=owner, key=key)
    if session is None:
        return None
    present = session.items.filter(evicted_turn__isnull=True)
    items = present.order_by("-last_touched_turn", "mem_id")[:limit]
    return WorkingSetView(
        session=session.key, turn=session.turn, eviction_threshold=session.eviction_threshold,
        baseline_stability=session.baseline_stability, working_set_size=present.count(),
        items=[working_item_view(item=item, turn=session.turn) for item in items],
    )
