from __future__ import annotations

from typing import Any

import pytest

from insight.analyzers.instructions import analyze
from tests.insight.analyzers.factories import assistant_text, prompt


def _one(text: str, **kw: object) -> dict[str, Any]:
    drafts = analyze([prompt(text, **kw)])
    assert len(drafts) == 1, drafts
    return {"category": drafts[0].category, "namespace": drafts[0].target_namespace,
            **drafts[0].payload}


@pytest.mark.parametrize(
    ("text", "polarity", "claim", "language"),
    [
        ("Always use pnpm in this repository.", "positive", "use pnpm", "en"),
        ("Never use library requests in this project.", "negative", "use library requests", "en"),
        ("Don't use mocks in the integration tests.", "negative", "use mocks", "en"),
        ("From now on, always run the tests before committing.", "positive", "run tests", "en"),
        ("Utilise toujours pnpm.", "positive", "use pnpm", "fr"),
        ("N'utilise jamais requests, utilise httpx.", "negative", "use requests", "fr"),
        ("Ne jamais utiliser de print dans le code.", "negative", "use print", "fr"),
        ("Il faut toujours lancer les tests avant de commiter.", "positive", "run tests", "fr"),
    ],
)
def test_an_instruction_is_observed_with_its_polarity_and_subject(
    text: str, polarity: str, claim: str, language: str
) -> None:
    found = _one(text)
    assert found["category"] == "instruction"
    assert found["namespace"] == "agent:claude-code:instruction"
    assert (found["polarity"], found["claim"], found["language"]) == (polarity, claim, language)


def test_the_same_claim_in_two_languages_compares_with_opposite_polarity() -> None:
    english, french = _one("Always use httpx."), _one("N'utilise jamais httpx.")
    assert english["claim"] == french["claim"] == "use httpx"
    assert {english["polarity"], french["polarity"]} == {"positive", "negative"}


def test_the_scope_and_the_alternative_are_kept_apart_from_the_subject() -> None:
    scoped = _one("Don't use mocks in the integration tests.")
    assert (scoped["subject"], scoped["scope"]) == ("mocks", "in the integration tests")
    instead, replaced = (d.payload for d in analyze([prompt("Utilise httpx au lieu de requests.")]))
    assert (instead["subject"], instead["alternative"]) == ("httpx", "requests")
    assert (replaced["claim"], replaced["polarity"]) == ("use requests", "negative")


@pytest.mark.parametrize(
    ("text", "polarity", "subject", "alternative"),
    [
        ("I prefer tabs over spaces.", "positive", "tabs", "spaces"),
        ("I'd rather use httpx than requests.", "positive", "httpx", "requests"),
        ("I hate long functions.", "negative", "long functions", None),
        ("Je préfère les tabs aux espaces.", "positive", "tabs", "espaces"),
        ("Je préfère utiliser pytest.", "positive", "pytest", None),
        ("Je n'aime pas les fonctions longues.", "negative", "fonctions longues", None),
    ],
)
def test_a_preference_is_the_operators(text: str, polarity: str, subject: str,
                                       alternative: str | None) -> None:
    found = _one(text)
    assert found["category"] == "preference"
    assert found["namespace"] == "self:operator:preference"
    assert (found["polarity"], found["subject"]) == (polarity, subject)
    assert found.get("alternative") == alternative


@pytest.mark.parametrize("text", [
    "Fix the failing test.", "I always forget this.", "I like how you did that.",
    "Corrige le test.", "non, c'est faux",
])
def test_plain_requests_are_not_instructions(text: str) -> None:
    assert analyze([prompt(text)]) == []


def test_only_the_operators_own_prompts_count() -> None:
    events = [
        assistant_text("Always use pnpm."),
        prompt("Always use pnpm.", thread="agent-1"),  # a subagent's task, from its parent
        prompt("Always use pnpm.", record={"isMeta": True}),
        prompt("<command-name>/init</command-name> always use pnpm"),
    ]
    assert analyze(events) == []


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        ("Always use uv, never pip.", [("use uv", "positive"), ("use pip", "negative")]),
        ("Always use pnpm, not npm.", [("use pnpm", "positive"), ("use npm", "negative")]),
        ("Never use requests, always httpx.",
         [("use requests", "negative"), ("use httpx", "positive")]),
        ("Utilise toujours uv, jamais pip.", [("use uv", "positive"), ("use pip", "negative")]),
        ("N'utilise jamais requests, utilise httpx.", [("use requests", "negative")]),
    ],
)
def test_a_verb_less_clause_after_an_instruction_is_a_claim_of_its_own(
    text: str, claims: list[tuple[str, str]]
) -> None:
    drafts = analyze([prompt(text)])
    assert [(d.payload["claim"], d.payload["polarity"]) for d in drafts] == claims
    assert len({d.key for d in drafts}) == len(claims)


def test_several_claims_in_one_prompt_are_several_observations_with_distinct_keys() -> None:
    drafts = analyze([prompt("Always use pnpm.\nNever commit to main.\nI prefer short names.")])
    assert [d.category for d in drafts] == ["instruction", "instruction", "preference"]
    assert len({d.key for d in drafts}) == 3
    assert all(d.event_ids == drafts[0].event_ids for d in drafts)


def test_provenance_and_correlation_come_from_the_event() -> None:
    event = prompt("Always use ruff.", session="sess-9", parent="p-1")
    (found,) = analyze([event])
    assert found.event_ids == (event["id"],)
    assert found.correlation == {"session": "sess-9", "thread": "", "parent": "p-1"}
    assert found.actors[0]["key"] == "self:operator"
