"""The one interface every analyzer implements: `analyze(events) -> list[ObservationDraft]`.

Events are event-shaped mappings (the producers' contract: id, source, source_id, type,
subtype, occurred_at, actor, project, correlation, payload). An event carrying
`"context": True` was loaded only so that its neighbours can be understood (the tool
call a tool result answers); analyzers read it and never observe it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

Event = Mapping[str, Any]


@dataclass(frozen=True)
class ObservationDraft:
    category: str
    target_namespace: str
    topic: str
    timestamp: datetime
    event_ids: tuple[str, ...]
    payload: dict[str, Any]
    actors: tuple[dict[str, str], ...] = ()
    sentiment: str = "neutral"
    sentiment_score: float = 0.0
    correlation: dict[str, str] = field(default_factory=dict)
    # What makes two drafts "the same observation" for one analyzer; empty = the event ids.
    key: str = ""


@dataclass(frozen=True)
class Analyzer:
    name: str
    sources: tuple[str, ...]
    analyze: Callable[[Sequence[Event]], list[ObservationDraft]]
