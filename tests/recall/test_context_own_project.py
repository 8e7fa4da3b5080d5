"""A project's context is that project's (issue 25, item 2): another project's rules and
pitfalls never enter it, whatever the query recalls (the rules of every project do); a
project never seen gets the pinned entities and the rules of every project only. And a rule
reads there as it was said (item 1): the operator's words with the day and the project, the
scope as the project's name, no markdown escapes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from insight.services.analysis import analysis_drain
from memory.models import Entity
from memory.services.context import context_assemble
from memory.services.events import event_append_many
from memory.services.retain import retain_drain
from memory.services.taxonomy import taxonomy_sync
from tests.actuation import graphs
from tests.insight.analyzers import factories as f

pytestmark = pytest.mark.django_db

SAID = datetime(2025, 6, 1, 10, 0, tzinfo=UTC)  # the factories' events
NOW = datetime(2025, 6, 2, 10, 0, tzinfo=UTC)
_CONTRACT = ("source_id", "type", "subtype", "occurred_at", "actor", "project", "correlation",
             "payload")
JQUERY = "agent:claude-code:instruction:use-jquery"
LODASH = "agent:claude-code:instruction:use-lodash"
MAIN = "agent:claude-code:instruction:push-main"


def _said(project: str, text: str, session: str) -> dict[str, Any]:
    event = f.prompt(text, project=project, session=session)
    event["payload"]["cwd"] = f"/home/op/work/{project}"
    return event


@pytest.fixture
def two_projects() -> str:
    taxonomy_sync()
    events = [_said("shop", "Never use lodash, use ramda.", "s1"),
              _said("blog", "Never use jquery in this project.", "b1"),
              _said("blog", "Never push to main in all projects.", "b2")]
    event_append_many(source="claude-code",
                      events=[{k: e[k] for k in _CONTRACT} for e in events])
    analysis_drain()
    retain_drain(embed=False)
    graphs.submit(graphs.tool_errors(sessions=3, project="blog", cwd="/home/op/work/blog",
                                     message="the blog database refused the connection",
                                     start=SAID, prefix="e"))
    pitfall = Entity.objects.get(namespace__path="agent:claude-code:rc")
    return pitfall.key


def _keys(project: str, query: str) -> list[str]:
    result = context_assemble(query=query, agent="claude-code", project=project,
                              budget_tokens=2000, now=NOW)
    return [e.key for e in result.entities]


def test_another_projects_rules_and_pitfalls_never_enter(two_projects: str) -> None:
    # recalled by the query, but the blog's: not the shop's
    assert JQUERY in _keys("blog", "may I use jquery?")
    assert JQUERY not in _keys("shop", "may I use jquery?")
    assert two_projects in _keys("blog", "the database refused the connection")
    assert two_projects not in _keys("shop", "the database refused the connection")
    shop = _keys("shop", "shop pitfalls instructions")
    assert LODASH in shop and MAIN in shop  # its own, and the rule of every project
    assert JQUERY not in shop and "world:project:blog" not in shop


def test_a_project_never_seen_gets_the_pinned_and_the_global_rules_only(
        two_projects: str) -> None:
    Entity.objects.filter(key="world:project:shop").update(pinned=True)
    for query in ("never-seen pitfalls instructions", "may I use jquery or lodash?",
                  "the database refused the connection"):
        assert sorted(_keys("never-seen", query)) == sorted([MAIN, "world:project:shop"])


def test_a_rule_block_quotes_the_operator_with_the_day_and_the_project(
        two_projects: str) -> None:
    context = context_assemble(query="may I use lodash?", agent="claude-code",
                               project="shop", budget_tokens=2000, now=NOW).context
    block = context.split("### `never use lodash`")[1].split("\n\n")[0]
    assert "- the operator said on 2025-06-01 in shop: `Never use lodash, use ramda.`" in block
    assert "rule `never use lodash`; instead `use ramda`; holds in shop" in block
    assert "\\" not in context  # no markdown escapes (`project\\:shop` before)
    assert "negated" not in context
