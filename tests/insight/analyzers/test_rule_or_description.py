"""rule_read reads an instruction, not a description (issue 29, item 2): the operator's
prompts of the fixture transcripts (read from ../shared/fixtures, skipped when absent) that
state a rule are still read as one, those that describe or ask are not; and a sentence
that says what "we" do ("we use `git add` but don't change the local folder tree") states no
rule, while the same words said to the agent do."""

from __future__ import annotations

import hashlib
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


def _prompt(shared_fixtures: Path, digest: str) -> str:
    """The operator's prompt whose SHA-256 starts with `digest` (the prompts are named by
    their digest: their words stay in ../shared, not copied here)."""
    found = [p for p in _prompts(shared_fixtures / "claude-code")
             if hashlib.sha256(p.encode()).hexdigest().startswith(digest)]
    assert len(found) == 1, f"{len(found)} prompts have the digest {digest}"
    return found[0]


@pytest.mark.parametrize(("digest", "name", "alternative"), [
    # an experiment's set-up ending on which tool not to use for communication
    ("dfcb4ed4aa68", "do not use clmail", "use builtin subagent teams"),
    # both runtimes installed, but not wanting it to work only for the operator
    ("0a004f3ed579", "do not make assumptions about people's env", ""),
])
def test_a_rule_the_operator_stated_is_still_read(shared_fixtures: Path, digest: str,
                                                  name: str, alternative: str) -> None:
    rule = rule_read(text=_prompt(shared_fixtures, digest))
    assert rule is not None
    assert (rule.kind, rule.name, rule.alternative) == ("instruction", name, alternative)


def test_each_line_of_a_list_of_donts_is_read(shared_fixtures: Path) -> None:
    # a request to analyze a codebase, with a list of what not to include
    names = {r.name for r in rules_read(text=_prompt(shared_fixtures, "cfdedaa2c597"))}
    assert "do not include generic development practices" in names


@pytest.mark.parametrize("digest", [
    "ba8fa7f1ea07",  # a question about where CI runs, then a judgement of its results
    "77fbebdfeb0f",  # what there is now, told for the agent's information
    "8beecbac8851",  # the operator's dislike of an idea
    "a7ae665ceb1d",  # a judgement of generated music
    "ee1bafb56b42",  # a judgement that the outputs sound alike
    "07f7ecb4e062",  # a request to write the program the README describes
])
def test_what_describes_or_asks_is_no_rule(shared_fixtures: Path, digest: str) -> None:
    text = _prompt(shared_fixtures, digest)
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
