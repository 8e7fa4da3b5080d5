"""With a project, context assembly's recall beyond the project runs in a thread of its own
while the caller recalls within it, on its own database connection (outside a transaction
only: another connection cannot see a transaction's rows); what it finds is what the two
recalls in turn find."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import transaction

from insight.services.analysis import analysis_drain
from memory.config import config_get
from memory.services import context as assembly
from memory.services.events import event_append_many
from memory.services.recall import recall_run
from memory.services.retain import retain_drain
from memory.services.taxonomy import taxonomy_sync
from tests.insight.analyzers import factories as f

pytestmark = pytest.mark.django_db(transaction=True)

NOW = datetime(2025, 6, 2, 10, 0, tzinfo=UTC)
QUERY = "may I use jquery or lodash, and push to main?"
_CONTRACT = ("source_id", "type", "subtype", "occurred_at", "actor", "project", "correlation",
             "payload")


def _said(project: str, text: str, session: str) -> dict[str, Any]:
    event = f.prompt(text, project=project, session=session)
    event["payload"]["cwd"] = f"/home/op/work/{project}"
    return {k: event[k] for k in _CONTRACT}


@pytest.fixture
def rules() -> None:
    taxonomy_sync()
    event_append_many(source="claude-code", events=[
        _said("shop", "Never use lodash, use ramda.", "s1"),
        _said("blog", "Never use jquery in this project.", "b1"),
        _said("blog", "Never push to main in all projects.", "b2")])
    analysis_drain()
    retain_drain(embed=False)


def _candidates() -> tuple[Any, ...]:
    config = config_get()
    assert config.context is not None
    return assembly._candidates(query=QUERY, project="blog", section=config.context, now=NOW,
                                config=config)


def test_the_recall_beyond_the_project_runs_beside_it(rules: None,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[str, str]] = []
    def spied(**kwargs: Any) -> Any:
        asked.append((kwargs["filters"].project, threading.current_thread().name))
        return recall_run(**kwargs)

    monkeypatch.setattr(assembly, "recall_run", spied)
    beside = _candidates()
    with transaction.atomic():
        in_turn = _candidates()
    main = threading.main_thread().name
    beyond = next(name for project, name in asked[:2] if project == "")
    assert ("blog", main) in asked[:2] and beyond.startswith("context-beyond")
    assert asked[2:] == [("blog", main), ("", main)]
    assert beside == in_turn
    ranked, known, _matched = beside
    keys = {known[i].key for i in ranked}
    assert "agent:claude-code:instruction:use-jquery" in keys  # the project's
    assert "agent:claude-code:instruction:use-lodash" in keys  # found beyond it
