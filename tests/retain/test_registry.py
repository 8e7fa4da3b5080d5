"""Handlers by (category, namespace pattern): the most specific pattern wins."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memory.retain.extraction import Extraction, ObservationView
from memory.retain.registry import handler_for, handler_register, handler_unregister


def _none(view: ObservationView) -> Extraction:
    return Extraction()


@pytest.fixture
def registered() -> Iterator[None]:
    pairs = [("probe", ""), ("probe", "agent"), ("probe", "agent:*:rc"),
             ("probe", "agent:lyra:rc")]
    for category, pattern in pairs:
        handler_register(category, pattern)(_none)
    yield
    for category, pattern in pairs:
        handler_unregister(category, pattern)


@pytest.mark.parametrize(("namespace", "pattern"), [
    ("agent:claude-code:rc", "agent:*:rc"),
    ("agent:claude-code:rc:sub", "agent:*:rc"),
    ("agent:lyra:rc", "agent:lyra:rc"),
    ("agent:lyra:skill", "agent"),
    ("world:person", ""),
])
def test_the_most_specific_pattern_wins(registered: None, namespace: str, pattern: str) -> None:
    found = handler_for(category="probe", namespace=namespace)
    assert found is not None and found.pattern == pattern


def test_another_category_finds_nothing(registered: None) -> None:
    assert handler_for(category="other-probe", namespace="agent:lyra:rc") is None


def test_every_category_the_analyzers_emit_has_a_handler_on_its_namespace() -> None:
    from insight.analyzers import namespaces

    emitted = [
        ("instruction", namespaces.instruction("claude-code")),
        ("preference", namespaces.PREFERENCE),
        ("correction", namespaces.correction("claude-code")),
        ("tool_error", namespaces.root_cause("claude-code")),
        ("permission_request", namespaces.permission("claude-code")),
        ("interaction", namespaces.relationship("claude-code")),
        ("commit", namespaces.PROJECT),
        ("project_activity", namespaces.PROJECT),
        ("project_activity", namespaces.ARTIFACT),
    ]
    for category, namespace in emitted:
        found = handler_for(category=category, namespace=namespace)
        assert found is not None and found.pattern, (category, namespace)
