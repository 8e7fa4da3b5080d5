"""Compiled-truth regeneration requests (docs/compiled-truth.md), written by the Retain Job when an
entity is created, gains facts or relations, or its strength moves past the regeneration
threshold. Layer 3 reads the open ones and consumes them once it has regenerated."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from memory import clock
from memory.models import RegenerationRequest


def regeneration_requests_open(*, limit: int = 1000) -> list[RegenerationRequest]:
    """The open requests, oldest first, with their entity."""
    return list(RegenerationRequest.objects.filter(consumed_at=None)
                .select_related("entity").order_by("requested_at", "id")[:limit])


def regeneration_consume(*, request_ids: Collection[int], now: datetime | None = None) -> int:
    """Mark these requests done (a later change opens a new one); returns how many."""
    return RegenerationRequest.objects.filter(pk__in=list(request_ids), consumed_at=None).update(
        consumed_at=now or clock.now())
