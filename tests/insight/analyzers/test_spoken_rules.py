"""Rules the operator states in words, in small constructed transcripts, English and French:
a rejected tool use with its reason, an interrupt followed by an instruction, a correction,
"always / never / don't / use X instead of Y / prefer", "I don't want you to". Each is an
instruction (or preference) with its polarity and where it holds."""

from __future__ import annotations

from typing import Any

import pytest

from insight.analyzers.instructions import analyze
from tests.insight.analyzers.factories import CWD, interrupt, prompt, tool_result, tool_use

REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
            "(eg. if it was a file edit, the new_string was NOT written to the file). ")
REASON = "The user provided the following reason for the rejection:  "
SAID = "To tell you how to proceed, the user said:\n"


def _claims(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(d.payload["claim"], d.payload["polarity"]) for d in analyze(events)]


def _rejected(command: str, reason: str, *, form: str = REASON) -> list[dict[str, Any]]:
    call = tool_use("Bash", {"command": command}, use_id="toolu_01")
    return [call, tool_result(REJECTED + form + reason, use_id="toolu_01", is_error=True,
                              call=call)]


@pytest.mark.parametrize(
    ("command", "reason", "form", "claims"),
    [
        ("npm install", "use pnpm", REASON, [("use pnpm", "positive"), ("use npm", "negative")]),
        ("pip install httpx", "use uv add instead", SAID,
         [("use uv add", "positive"), ("use pip", "negative")]),
        ("npm install", "utilise pnpm", REASON,
         [("use pnpm", "positive"), ("use npm", "negative")]),
        ("git push --force", "never force push to main", REASON,
         [("force push to main", "negative")]),
        ("rm -rf build", "ne supprime jamais le dossier build", SAID,
         [("delete dossier build", "negative")]),
    ],
)
def test_a_rejected_tool_use_with_a_reason_is_a_rule(
    command: str, reason: str, form: str, claims: list[tuple[str, str]]
) -> None:
    drafts = analyze(_rejected(command, reason, form=form))
    assert [(d.payload["claim"], d.payload["polarity"]) for d in drafts] == claims
    assert {d.category for d in drafts} == {"instruction"}
    assert {d.payload["source"] for d in drafts} == {"rejection"}
    assert all(d.event_ids == (_rejected_id(drafts),) for d in drafts)


def _rejected_id(drafts: list[Any]) -> str:
    return str(drafts[0].event_ids[0])


def test_a_rejection_without_a_reason_states_no_rule() -> None:
    call = tool_use("Bash", {"command": "npm install"}, use_id="toolu_02")
    events = [call, tool_result(REJECTED + "STOP what you are doing.", use_id="toolu_02",
                                is_error=True, call=call)]
    assert analyze(events) == []


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        ("use httpx", [("use httpx", "positive")]),
        ("No, use httpx instead of requests.", [("use httpx", "positive"),
                                                ("use requests", "negative")]),
        ("Don't touch the migrations.", [("touch migrations", "negative")]),
        ("utilise httpx", [("use httpx", "positive")]),
        ("Non, utilise httpx plutôt que requests.", [("use httpx", "positive"),
                                                     ("use requests", "negative")]),
    ],
)
def test_an_interrupt_followed_by_an_instruction_is_a_rule(
    text: str, claims: list[tuple[str, str]]
) -> None:
    stop = interrupt()
    said = prompt(text, parent=stop["source_id"])
    drafts = analyze([stop, said])
    assert [(d.payload["claim"], d.payload["polarity"]) for d in drafts] == claims
    assert {d.payload["source"] for d in drafts} == {"correction"}
    assert {d.event_ids for d in drafts} == {(said["id"],)}


def test_an_instruction_in_the_interrupts_own_line_is_a_rule() -> None:
    stop = interrupt()
    stop["payload"]["message"]["content"].append({"type": "text", "text": "non, utilise uv"})
    assert _claims([stop]) == [("use uv", "positive")]
    assert analyze([interrupt()]) == []


def test_a_bare_use_outside_a_correction_is_a_task_not_a_rule() -> None:
    assert analyze([prompt("use httpx")]) == []
    assert analyze([prompt("Use the Explore task to give me an overview")]) == []


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        ("No, use pnpm.", [("use pnpm", "positive")]),
        ("Non, utilise pnpm.", [("use pnpm", "positive")]),
    ],
)
def test_a_correction_that_names_what_to_do_is_a_rule(text: str,
                                                      claims: list[tuple[str, str]]) -> None:
    assert _claims([prompt(text)]) == claims


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        ("Always use pnpm.", [("use pnpm", "positive")]),
        ("Never commit to main.", [("commit main", "negative")]),
        ("Don't add comments or docstrings.",
         [("add comments", "negative"), ("add docstrings", "negative")]),
        ("Use ruff instead of flake8.", [("use ruff", "positive"), ("use flake8", "negative")]),
        ("Prefer composition over inheritance.",
         [("prefer composition", "positive"), ("prefer inheritance", "negative")]),
        ("Don't forget to run the tests.", [("run tests", "positive")]),
        ("It works, but I don't want you to change the public API.",
         [("change public api", "negative")]),
        ("Utilise toujours pnpm.", [("use pnpm", "positive")]),
        ("N'utilise jamais requests.", [("use requests", "negative")]),
        ("N'utilise pas npm.", [("use npm", "negative")]),
        ("Utilise ruff plutôt que flake8.", [("use ruff", "positive"), ("use flake8", "negative")]),
        ("Évite les mocks.", [("use mocks", "negative")]),
        ("Je ne veux pas que tu modifies les tests.", [("modify tests", "negative")]),
    ],
)
def test_each_form_of_rule_in_a_prompt(text: str, claims: list[tuple[str, str]]) -> None:
    assert _claims([prompt(text)]) == claims


@pytest.mark.parametrize("text", [
    "Don't worry about it.", "I don't know why it fails.", "They don't look that bad.",
    "Ne t'inquiète pas.", "continue", "ok, fine, let's do vite",
])
def test_words_that_are_no_rule(text: str) -> None:
    stop = interrupt()
    assert analyze([stop, prompt(text, parent=stop["source_id"])]) == []


@pytest.mark.parametrize(
    ("text", "applies_to"),
    [
        ("Always use pnpm.", "project"),
        ("Always use pnpm, in all projects.", "global"),
        ("Utilise toujours pnpm partout.", "global"),
        ("I prefer tabs over spaces.", "global"),
    ],
)
def test_a_rule_holds_in_its_project_unless_it_says_otherwise(text: str,
                                                              applies_to: str) -> None:
    (first, *_) = analyze([prompt(text)])
    assert (first.payload["applies_to"], first.payload["project"]) == (applies_to, "cortex")


def test_the_project_comes_from_the_path_a_worktree_names_its_repository() -> None:
    record = {"cwd": f"{CWD}/.claude/worktrees/agent-ab1e6e14"}
    (found,) = analyze([prompt("Always use pnpm.", project="agent-ab1e6e14", record=record)])
    assert found.payload["project"] == "cortex"
