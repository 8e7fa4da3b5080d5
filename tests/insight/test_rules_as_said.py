"""A rule reads as it was said (issue 25, item 1): named with its polarity, its alternative
kept, the operator's own words quoted, "in this project" bound to the session's project, and
opposite rules of two projects no conflict."""

from __future__ import annotations

from typing import Any

import pytest

from insight.analyzers.instructions import analyze, rule_read
from insight.services.analysis import analysis_drain
from memory.models import Conflict, Entity, Fact
from memory.services.events import event_append_many
from memory.services.retain import retain_drain
from tests.insight.analyzers import factories as f

_CONTRACT = ("source_id", "type", "subtype", "occurred_at", "actor", "project", "correlation",
             "payload")


@pytest.mark.parametrize(("text", "name", "alternative"), [
    ("N'utilise jamais requests, utilise httpx.", "never use requests", "use httpx"),
    ("Never use requests in this project, use httpx.", "never use requests", "use httpx"),
    ("Ne modifie jamais les migrations à la main.", "never modify migrations à la main", ""),
    ("Don't use mocks in the integration tests.", "do not use mocks", ""),
    ("Always use pnpm here, never npm.", "always use pnpm", ""),
    ("Utilise toujours uv.", "always use uv", ""),
])
def test_a_rule_is_named_as_said_with_its_polarity_and_its_alternative(
        text: str, name: str, alternative: str) -> None:
    rule = rule_read(text=text)
    assert rule is not None
    assert (rule.name, rule.alternative) == (name, alternative)


def test_the_operators_own_words_are_kept_as_typed() -> None:
    (draft,) = analyze([f.prompt("N'utilise jamais requests, utilise httpx.")])
    assert draft.payload["said"] == "N'utilise jamais requests, utilise httpx."
    assert (draft.payload["rule"], draft.payload["instead"]) == ("never use requests",
                                                                 "use httpx")
    assert draft.payload["claim"] == "use requests"  # the action both polarities share


@pytest.mark.parametrize(("text", "scope"), [
    ("Always use requests in this project, httpx breaks the build.", "this_project"),
    ("Utilise toujours requests dans ce projet, httpx casse le build.", "this_project"),
    ("Always use pnpm here, never npm.", "this_project"),
    ("Always use requests.", "project"),
    ("Always use requests in all projects.", "global"),
])
def test_in_this_project_binds_the_rule_to_the_sessions_project(text: str, scope: str) -> None:
    rule = rule_read(text=text)
    assert rule is not None and rule.scope == scope


def _retain(*events: dict[str, Any]) -> None:
    event_append_many(source="claude-code",
                      events=[{k: e[k] for k in _CONTRACT} for e in events])
    analysis_drain()
    retain_drain(embed=False)


def _in(project: str, event: dict[str, Any]) -> dict[str, Any]:
    event["project"] = project
    event["payload"]["cwd"] = f"/home/op/work/{project}"
    return event


KEY = "agent:claude-code:instruction:use-requests"


@pytest.mark.django_db
def test_the_rule_entity_and_its_claim_carry_the_polarity() -> None:
    _retain(_in("billing-api", f.prompt("N'utilise jamais requests, utilise httpx.")))
    rule = Entity.objects.get(key=KEY)
    assert rule.display_name == "never use requests"
    fact = Fact.objects.get(entity=rule)
    assert (fact.claim, fact.polarity, fact.scope) == ("never use requests", -1,
                                                      "project:billing-api")


@pytest.mark.django_db
def test_a_rule_said_for_this_project_in_two_projects_holds_in_those_two_only() -> None:
    _retain(_in("billing-api", f.prompt("N'utilise jamais requests, utilise httpx.")),
            _in("cortex", f.prompt("Always use requests in this project, httpx breaks it.")),
            _in("data-pipeline",
                f.prompt("Utilise toujours requests dans ce projet, httpx casse le build.")))
    always = Fact.objects.get(entity__key=KEY, polarity=1)
    assert always.scope == "project:cortex, project:data-pipeline (in this project)"
    # opposite rules in different projects: no conflict
    assert not Conflict.objects.exists()
    assert set(Fact.objects.filter(entity__key=KEY).values_list("status", flat=True)) == {
        "active"}


@pytest.mark.django_db
def test_opposite_rules_in_one_project_are_a_conflict() -> None:
    _retain(_in("billing-api", f.prompt("N'utilise jamais requests, utilise httpx.")),
            _in("billing-api", f.prompt("Always use requests in this project.")))
    assert Conflict.objects.filter(entity__key=KEY).count() == 1
