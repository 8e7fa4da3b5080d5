"""Context for a project: the operator's standing instructions for it (or for every project)
and its known pitfalls come after the pinned entities, whatever the query; given for the
project, they are reinforced only when the query finds them too."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from memory.config import config_get
from memory.models import Entity, Fact
from memory.services.context import context_assemble
from memory.services.taxonomy import taxonomy_sync
from tests.actuation import graphs

pytestmark = pytest.mark.django_db

NOW = graphs.T0 + timedelta(days=1)
_SECTION = config_get().context
assert _SECTION is not None
SECTION = _SECTION


def _instruction(claim: str, *, project: str, applies_to: str, session: str) -> dict[str, Any]:
    eid = graphs.event(session=session, project=project, cwd=f"/home/op/{project}",
                       at=graphs.T0)
    return graphs.observation(
        "instruction", "agent:claude-code:instruction", session=session, event_id=eid,
        at=graphs.T0, topic=claim, actors=(graphs.OPERATOR, {**graphs.AGENT, "role": "addressee"}),
        payload={"claim": claim, "subject": claim.split(" ", 1)[-1], "polarity": "negative",
                 "text": f"Never {claim}.", "language": "en", "agent": "claude-code",
                 "project": project, "applies_to": applies_to})


def _rule(claim: str) -> Entity:
    # a negative rule's claim carries its polarity: "never use lodash"
    return Fact.objects.get(claim=f"never {claim}").entity


def _sections(project: str, query: str = "how do I center a div?",
              budget: int = 2000) -> dict[str, list[str]]:
    result = context_assemble(query=query, agent="claude-code", project=project,
                              budget_tokens=budget, now=NOW)
    sections: dict[str, list[str]] = {}
    for entity in result.entities:
        sections.setdefault(entity.section, []).append(entity.key)
    return sections


@pytest.fixture
def rules() -> dict[str, Entity]:
    taxonomy_sync()
    # the rule for every project is retained first: of two rules as strong, the project's own
    # comes first only because it is the project's
    graphs.submit([
        _instruction("commit to main", project="blog", applies_to="global", session="c"),
        _instruction("use lodash", project="shop", applies_to="project", session="a"),
        _instruction("use jquery", project="blog", applies_to="project", session="b")])
    return {claim: _rule(claim) for claim in ("use lodash", "use jquery", "commit to main")}


def test_the_standing_instructions_of_the_project_and_of_every_project_come_first(
        rules: dict[str, Entity]) -> None:
    assert Fact.objects.get(claim="never use lodash").scope == "project:shop"
    sections = _sections("shop")
    # the project's own first, then the one said for every project; not the blog's own
    assert sections["Standing instructions"] == [rules["use lodash"].key,
                                                 rules["commit to main"].key]
    assert rules["use jquery"].key not in sum(sections.values(), [])
    assert "Standing instructions" not in _sections("")  # no project, nothing standing


def test_a_standing_instruction_is_reinforced_only_when_the_query_finds_it(
        rules: dict[str, Entity]) -> None:
    lodash = rules["use lodash"]
    before = Entity.objects.get(pk=lodash.pk).retrieval_count
    assert lodash.key in _sections("shop")["Standing instructions"]
    assert Entity.objects.get(pk=lodash.pk).retrieval_count == before
    assert lodash.key in _sections("shop", query="may I use lodash?")["Standing instructions"]
    assert Entity.objects.get(pk=lodash.pk).retrieval_count == before + 1


def test_the_standing_instructions_take_at_most_their_share_of_the_budget(
        rules: dict[str, Entity]) -> None:
    full = context_assemble(query="how do I center a div?", agent="claude-code",
                            project="shop", budget_tokens=2000, now=NOW)
    cost = sum(e.tokens for e in full.entities if e.section == "Standing instructions")
    assert cost > 0
    # a budget whose share is just under what the two blocks cost holds one of them
    budget = int((cost - 1) / SECTION.standing_share)
    tight = _sections("shop", budget=budget)
    assert len(tight["Standing instructions"]) == 1


def test_the_known_pitfalls_are_the_root_causes_met_in_enough_of_its_sessions() -> None:
    taxonomy_sync()
    enough = SECTION.pitfall_min_sessions
    graphs.submit(
        graphs.tool_errors(sessions=enough, project="shop", message="file has not been read")
        + graphs.tool_errors(sessions=enough - 1, project="shop", message="once only",
                             prefix="o")
        + graphs.tool_errors(sessions=enough + 1, project="blog", cwd="/home/op/blog",
                             message="the blog's own", prefix="b"))
    sections = _sections("shop")
    (pitfall,) = sections["Known pitfalls"]
    assert Entity.objects.get(key=pitfall).display_name.endswith("file has not been read")
    context = context_assemble(query="how do I center a div?", agent="claude-code",
                               project="shop", budget_tokens=2000, now=NOW).context
    part = context.split("## Known pitfalls")[1].split("\n## ")[0]
    lines = [line for line in part.splitlines() if line.startswith("- ")]
    assert len(lines) == 1
    assert lines[0].startswith(f"- `Edit: file has not been read` (`{pitfall}`, strength ")
