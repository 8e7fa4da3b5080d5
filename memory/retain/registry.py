"""Handlers registered by (category, namespace pattern); the most specific pattern wins.

`memory` owns the registry; `insight` (and later others) fill it from their
AppConfig.ready(), so memory never imports them.

A pattern is a namespace path whose segments may be `*` (any one segment). It
matches a namespace when it matches the namespace's leading segments, so
`agent:*:rc` matches `agent:claude-code:rc` and `agent:claude-code:rc:sub`; the
empty pattern matches every namespace. Specificity: more literal segments first,
then more segments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memory.retain.extraction import Extraction, ObservationView

Handler = Callable[[ObservationView], Extraction]


@dataclass(frozen=True)
class Registration:
    category: str
    pattern: str
    handler: Handler

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(self.pattern.split(":")) if self.pattern else ()

    def matches(self, category: str, namespace: str) -> bool:
        if category != self.category:
            return False
        parts = namespace.split(":")
        if len(parts) < len(self.segments):
            return False
        return all(seg in ("*", part) for seg, part in zip(self.segments, parts, strict=False))

    @property
    def specificity(self) -> tuple[int, int]:
        literal = sum(1 for seg in self.segments if seg != "*")
        return literal, len(self.segments)


_registry: dict[tuple[str, str], Registration] = {}
# (category, namespace) -> the registration chosen for it; emptied by every change of the
# registry (a chunk asks for each of its observations, over a handful of pairs).
_chosen: dict[tuple[str, str], Registration | None] = {}
_CHOSEN_KEPT = 10_000


def handler_register(category: str, pattern: str = "") -> Callable[[Handler], Handler]:
    """Decorator: register `handler` for observations of `category` under `pattern`
    (registering the same pair again replaces the handler)."""

    def decorate(handler: Handler) -> Handler:
        _registry[(category, pattern)] = Registration(category, pattern, handler)
        _chosen.clear()
        return handler

    return decorate


def handler_unregister(category: str, pattern: str = "") -> None:
    _registry.pop((category, pattern), None)
    _chosen.clear()


def handler_for(*, category: str, namespace: str) -> Registration | None:
    if (category, namespace) in _chosen:
        return _chosen[(category, namespace)]
    candidates = [r for r in _registry.values() if r.matches(category, namespace)]
    chosen = max(candidates, key=lambda r: (r.specificity, r.pattern), default=None)
    if len(_chosen) >= _CHOSEN_KEPT:
        _chosen.clear()
    _chosen[(category, namespace)] = chosen
    return chosen


def handler_registrations() -> list[Registration]:
    return sorted(_registry.values(), key=lambda r: (r.category, r.pattern))
