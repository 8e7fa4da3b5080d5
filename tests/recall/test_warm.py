"""A web worker's start (recall_warm): its first recall and context build nothing the next
ones would not, and the start writes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from memory.models import Entity, Memory
from memory.selectors import statements
from memory.services.recall import recall_run, recall_warm
from tests.recall.test_context import _context, graph  # noqa: F401 - the fixture
from tests.recall.test_recall import NOW

pytestmark = pytest.mark.django_db


def _rows() -> list[tuple[Any, ...]]:
    return [*Entity.objects.order_by("pk").values_list("pk", "retrieval_count",
                                                       "last_reinforced_at", "strength"),
            *Memory.objects.order_by("pk").values_list("pk", "retrieval_count")]


def test_a_worker_start_builds_what_its_first_recalls_would_and_writes_nothing(
        graph: dict[str, Entity], monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    statements._cache.clear()  # a new process's
    built: list[object] = []
    compiled = statements._compiled

    def counted(owner: object, build: statements.Build) -> Any:
        built.append(build)
        return compiled(owner, build)

    monkeypatch.setattr(statements, "_compiled", counted)
    before = _rows()
    recall_warm()
    assert built and _rows() == before

    built.clear()
    recall_run(query="lodash", unit="entity", now=NOW)
    recall_run(query="lodash", unit="memory", now=NOW)
    assert graph["rule"].key in [e["key"] for e in _context()["entities"]]
    assert built == []
