"""rule_read reads an instruction, not a description (issue 29, item 2): the operator's
prompts of the fixture transcripts (read from ../shared/fixtures, skipped when absent) that
state a rule are still read as one, those that describe or ask are not; and a sentence
that says what "we" do ("we use `git add` but don't change the local folder tree") states no
rule, while the same words said to the agent do."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from insight.analyzers.instructions import rule_read, rules_read

pytestmark = pytest.mark.fixtures


@cache
def _prompts(root: Path) -> tuple[str, ...]:
    """The text of every operator prompt of the fixture transcripts (main sessions)."""
    found = []
    for path in sorted(root.rglob("*.jsonl")):
        for raw in path.read_text(errors="replace").splitlines():
            try:
                record = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(record, dict) or record.get("type") != "user" \
                    or record.get("isSidechain"):
                continue
            message = record.get("message")
            if not isinstance(message, dict):
                continue
            content = message.get("content")
            if isinstance(content, str):
                found.append(content)
            elif isinstance(content, list):
                found.append(" ".join(str(b.get("text") or "") for b in content
                                      if isinstance(b, dict) and b.get("type") == "text"))
    return tuple(found)


def _prompt(shared_fixtures: Path, start: str) -> str:
    """The operator's prompt that holds `start`, one that begins with it first."""
    found = sorted((p for p in _prompts(shared_fixtures / "claude-code") if start in p),
                   key=lambda p: (not p.startswith(start), p))
    assert found, f"no prompt holds {start!r}"
    return found[0]


@pytest.mark.parametrize(("start", "name", "alternative"), [
    # "... To be clear: don't use ClMail for communication, use the builtin subagent teams."
    ("OK, we're going to make a little experiment here.", "do not use clmail",
     "use builtin subagent teams"),
    ("I have both Node and Python, but I don't want to make it only work for me",
     "do not make assumptions about people's env", ""),
])
def test_a_rule_the_operator_stated_is_still_read(shared_fixtures: Path, start: str,
                                                  name: str, alternative: str) -> None:
    rule = rule_read(text=_prompt(shared_fixtures, start))
    assert rule is not None
    assert (rule.kind, rule.name, rule.alternative) == ("instruction", name, alternative)


def test_each_line_of_a_list_of_donts_is_read(shared_fixtures: Path) -> None:
    names = {r.name for r in rules_read(text=_prompt(shared_fixtures,
                                                     "Please analyze this codebase"))}
    assert "do not include generic development practices" in names


@pytest.mark.parametrize("start", [
    "Wait, does it only run on main?",  # "... They don't look that bad."
    "OK, so this was just so you know what there is now",
    "I actually don't like much this idea",
    "it doesn't sound quite like music",
    "all of texts now sound the same",
    "ok, now write the program using the instruction in README.md",
])
def test_what_describes_or_asks_is_no_rule(shared_fixtures: Path, start: str) -> None:
    text = _prompt(shared_fixtures, start)
    assert [r for r in rules_read(text=text) if r.kind == "instruction"] == []


@pytest.mark.parametrize("text", [
    "we use git add but don't change the local folder tree",
    "We use `git add` but don't change the local folder tree.",
    "I run the linter but never push to main.",
    "on utilise git add mais ne change pas l'arborescence locale",
])
def test_what_we_do_is_a_description_not_a_rule(text: str) -> None:
    assert rule_read(text=text) is None


@pytest.mark.parametrize(("text", "name"), [
    ("Use `git add` but don't change the local folder tree.",
     "do not change local folder tree"),
    ("I want you to use git add but don't change the local folder tree.",
     "do not change local folder tree"),
    ("We use pnpm, so don't use npm.", "do not use npm"),
    ("I know it's slow, but don't change the schema.", "do not change schema"),
    ("We don't push to main.", "do not push main"),
    ("Utilise git add mais ne modifie jamais l'arborescence.", "never modify arborescence"),
])
def test_the_same_words_said_to_the_agent_are_a_rule(text: str, name: str) -> None:
    rule = rule_read(text=text)
    assert rule is not None and rule.name == name
