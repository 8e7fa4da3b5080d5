"""The pure readings the detectors rest on: which error texts can be pitfalls and what to do,
what task a first prompt asks for (English and French alike), what a correction states."""

from __future__ import annotations

import pytest

from actuation.detectors.claude_md import recovery_of
from actuation.detectors.pitfall_text import pitfall_advice, pitfall_text_refusal
from actuation.detectors.rules import rule_in, rule_line
from actuation.detectors.steps import step_of
from actuation.detectors.tasks import task_similarity, task_words
from actuation.selectors.graph import ToolUse
from tests.actuation.graphs import T0


@pytest.mark.parametrize("message, refused", [
    ("file has not been read yet. read it first before writing to it.", None),
    ("bash: pytest: command not found", None),
    ("(no message)", "an empty message"),
    ("", "an empty message"),
    ("cannot use config.newconfig() (value of type) as string", "code under edit"),
    ("<path>:<n>:<n>: undefined: parsehandler", "code under edit"),
    ("--- fail: testparse (<n>s)", "code under edit"),
    ("error: job 'test' failed | failure - main run formatting check", "code under edit"),
    ("compiling shop v<n> (<path>)", "progress or output"),
    ("inputvalidationerror: task failed due to the following issue:", "malformed input"),
    ("modulenotfounderror: no module named 'torch'", "missing dependency"),
    ("error: cannot find module 'vite'", "missing dependency"),
])
def test_which_errors_can_be_pitfalls(message: str, refused: str | None) -> None:
    found = pitfall_text_refusal(message)
    assert (found is None) if refused is None else (found is not None and refused in found)


def test_the_line_says_what_to_do() -> None:
    assert pitfall_advice(message="file has not been read yet", failing="Edit",
                          recovery="Read", kind="before") == \
        "Read a file before editing or writing it"
    assert pitfall_advice(message="npm err! missing script: lint", failing="Bash: npm lint",
                          recovery="Bash: npm install", kind="before") == \
        "Run `npm install` before `npm lint`"
    assert pitfall_advice(message="command not found", failing="Bash: pytest",
                          recovery="Bash: uv run pytest", kind="instead") == \
        "Use `uv run pytest` instead of `pytest`"


def _uses(*steps: tuple[str, str, bool]) -> list[ToolUse]:
    return [ToolUse(id=str(n), at=T0, tool=tool, command=command, failed=failed)
            for n, (tool, command, failed) in enumerate(steps)]


def test_a_recovery_is_another_step_then_success() -> None:
    assert recovery_of("Edit", _uses(("Read", "", False), ("Edit", "", False))) == \
        ("before", "Read")
    assert recovery_of("Write", _uses(("TodoWrite", "", False), ("Read", "", False),
                                      ("Edit", "", False))) == ("before", "Read")
    assert recovery_of("Edit", _uses(("Edit", "", False))) is None  # a retry
    assert recovery_of("Bash: go build", _uses(("Edit", "", False),
                                               ("Bash", "go build", False))) is None
    assert recovery_of("Edit", _uses(("Read", "", False), ("Edit", "", True))) is None
    assert recovery_of("Bash: pytest", _uses(("Bash", "uv run pytest", False))) == \
        ("instead", "Bash: uv run pytest")


def test_a_task_reads_alike_in_english_and_french() -> None:
    english = task_words("Fix the failing test in tests/test_billing.py.")
    french = task_words("Corrige le test qui échoue dans tests/test_users.py.")
    assert english == french == {"fix", "fail", "test"}
    other = task_words("Add pagination to the invoices listing, 50 items per page.")
    assert task_similarity(english, other) == 0.0


@pytest.mark.parametrize("text, line", [
    ("use pnpm, not npm", '- Always: "use pnpm", not "npm".'),
    ("no, then it's good", None),
    ("Entire Inc.", None),
])
def test_only_a_rule_becomes_a_line(text: str, line: str | None) -> None:
    rule = rule_in(text, corrective=True)
    assert (rule_line(rule) if rule else None) == line


def test_a_rule_line_keeps_what_to_do_instead() -> None:
    rule = rule_in("N'utilise jamais requests, utilise httpx.", corrective=False)
    assert rule is not None and rule.name == "never use requests"
    assert rule_line(rule) == '- Never: "use requests", instead "use httpx".'


@pytest.mark.parametrize(("command", "step"), [
    ("uv run pytest -q", "Bash: uv run pytest"),
    ("cd app && npm test", "Bash: npm test"),
    ("sleep 2 && curl -s localhost:3000", "Bash: curl"),
    ("yes | npm init", "Bash: npm init"),
    ("export CI=1; make build", "Bash: make build"),
    ("cd app", ""),
])
def test_a_step_is_the_command_that_does_the_work(command: str, step: str) -> None:
    assert step_of("Bash", command) == step
