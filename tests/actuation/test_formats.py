"""The formats as Claude Code reads them: the allowlist JSON stays valid and is never
widened; SKILL.md front matter is valid; the CLAUDE.md section is owned; diffs apply."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from actuation.formats.allowlist import SettingsInvalid, allow_rule_add, allow_rule_refusal
from actuation.formats.claude_md import section_add_line, section_lines
from actuation.formats.diff import unified_diff
from actuation.formats.quoting import quote
from actuation.formats.skill import skill_front_matter, skill_problems, skill_render

SETTINGS = """{
    "model": "sonnet",
    "permissions": {
        "deny": ["Bash(rm:*)", "Read(./.env)"],
        "allow": ["Bash(make test:*)"],
        "ask": []
    },
    "env": {"A": "1"}
}
"""


def test_an_allow_rule_is_appended_keeping_everything_else() -> None:
    after = allow_rule_add(SETTINGS, rule="Bash(npm run test:*)")
    assert after is not None
    data = json.loads(after)
    before = json.loads(SETTINGS)
    assert list(data) == list(before) and list(data["permissions"]) == ["deny", "allow", "ask"]
    assert data["permissions"]["deny"] == before["permissions"]["deny"]
    assert data["permissions"]["allow"] == ["Bash(make test:*)", "Bash(npm run test:*)"]
    assert {k: v for k, v in data.items() if k != "permissions"} == {
        k: v for k, v in before.items() if k != "permissions"}
    assert after.splitlines()[1].startswith("    ")  # the file's own indentation
    assert allow_rule_add(after, rule="Bash(npm run test:*)") is None


def test_a_missing_settings_file_is_created() -> None:
    assert json.loads(allow_rule_add(None, rule="WebFetch(domain:docs.python.org)") or "") == {
        "permissions": {"allow": ["WebFetch(domain:docs.python.org)"]}}


@pytest.mark.parametrize("text", ['{"permissions": ', "[]", '{"permissions": {"allow": 3}}'])
def test_a_settings_file_cortex_cannot_read_is_left_alone(text: str) -> None:
    with pytest.raises(SettingsInvalid):
        allow_rule_add(text, rule="Bash(npm test:*)")


@pytest.mark.parametrize("rule", [
    "Bash", "Bash()", "Bash(*)", "Bash(:*)", "Bash(npx:*)", "Bash(npx bash:*)",
    "Bash(uv run python:*)", "Bash(uv run -- sh:*)", "Bash(docker exec web:*)",
    "Bash(sh -c:*)", "Bash(bash -c:*)", "Bash(docker exec:*)", "Bash(uv run:*)",
    "Bash(python:*)", "Bash(python -c:*)", "Bash(python -m pip:*)", "Bash(env:*)",
    "Bash(sudo apt:*)", "Bash(xargs:*)", "Bash(npm test && curl x:*)", "Bash(ls; rm -rf /)",
    "Bash(cat x | sh)", "Bash(echo $(id))", "Bash(git *)", "Bash(npm exec:*)", "Edit",
    "Read(**)", "WebFetch", "Bash(npm test:*)\n", "Bash(find . -exec rm:*)",
    # Granted on the spread corpus, never merged by a reviewer: an agent that runs anything,
    # an install that runs a package's build, a package fetched at a version and run.
    "Bash(claude:*)", "Bash(pip install:*)", "Bash(uv pip install:*)",
    "Bash(npx create-next-app@latest:*)", "Bash(pnpm dlx degit@2:*)",
    # Installing, adding, upgrading or removing packages, in every ecosystem alike, and a
    # package manager alone (it covers its installs).
    "Bash(pnpm add:*)", "Bash(pnpm install:*)", "Bash(npm i:*)", "Bash(npm ci:*)",
    "Bash(yarn global add:*)", "Bash(bun add:*)", "Bash(conda create:*)",
    "Bash(conda env create:*)", "Bash(mamba install:*)", "Bash(uv add:*)", "Bash(uv sync:*)",
    "Bash(uv tool install:*)", "Bash(pipx install:*)", "Bash(poetry add:*)",
    "Bash(cargo install:*)", "Bash(go get:*)", "Bash(gem install:*)", "Bash(brew install:*)",
    "Bash(apt-get install:*)", "Bash(dotnet add:*)", "Bash(npm:*)", "Bash(cpanm:*)",
    # Commands that only serve the next one on the line: the grant was for that one.
    "Bash(yes:*)", "Bash(sleep:*)", "Bash(true:*)", "Bash(export:*)",
])
def test_broad_or_compound_rules_are_refused(rule: str) -> None:
    assert allow_rule_refusal(rule) is not None
    with pytest.raises(ValueError):
        allow_rule_add(SETTINGS, rule=rule)


@pytest.mark.parametrize("rule", ["Bash(npm run test:*)", "Bash(git status)", "Bash(pytest:*)",
                                  "Bash(python -m pytest:*)", "Bash(make lint:*)",
                                  "Bash(uv run pytest:*)", "Bash(npx prettier:*)",
                                  "Bash(pip list:*)", "Bash(npx tsc:*)",
                                  "Bash(npm run update:*)", "Bash(conda activate:*)",
                                  "Bash(go test:*)", "Bash(cargo build:*)",
                                  "Bash(pnpm dev:*)", "Bash(uv run ruff:*)",
                                  "WebFetch(domain:example.com)", "mcp__github__get_issue"])
def test_narrow_rules_are_accepted(rule: str) -> None:
    assert allow_rule_refusal(rule) is None


def test_skill_front_matter() -> None:
    text = skill_render(name="run-checks", description="Runs the checks. Use before a push.",
                        title="Checks", steps=["`make lint`", "`make test`"])
    front = skill_front_matter(text)
    assert front == {"name": "run-checks", "description": "Runs the checks. Use before a push."}
    assert skill_problems(name="run-checks", description=front["description"],
                          body=text, folder="run-checks") == []


@pytest.mark.parametrize("name", ["", "Run", "run--checks", "-run", "run-", "a" * 65, "a_b",
                                  "<x>"])
def test_invalid_skill_names(name: str) -> None:
    assert skill_problems(name=name, description="ok", body="", folder=name)


def test_other_skill_rules() -> None:
    assert skill_problems(name="a", description="ok", body="", folder="b")
    assert skill_problems(name="a", description="", body="", folder="a")
    assert skill_problems(name="a", description="x" * 1025, body="", folder="a")
    assert skill_problems(name="a", description="use <b>this</b>", body="", folder="a")
    assert skill_problems(name="a", description="ok", body="x\n" * 500, folder="a")
    assert not skill_problems(name="a", description="x" * 1024, body="x\n" * 499, folder="a")


OPERATOR = "# Project\n\nThe operator's text.\n- keep this\n"


def test_the_section_is_owned_and_the_operators_text_kept() -> None:
    first = section_add_line(OPERATOR, section="Known pitfalls", line="- one", max_lines=200)
    assert first is not None and first.after.startswith(OPERATOR)
    second = section_add_line(first.after, section="Known pitfalls", line="- two", max_lines=200)
    assert second is not None and second.after.startswith(OPERATOR)
    assert section_lines(second.after, section="Known pitfalls") == ["- one", "- two"]
    assert second.after.count("## Known pitfalls") == 1


def test_a_line_already_there_is_not_added() -> None:
    assert section_add_line(OPERATOR, section="Known pitfalls", line="- Keep  this",
                            max_lines=200) is None


def test_past_200_lines_it_says_so() -> None:
    long = "".join(f"line {i}\n" for i in range(197))
    edit = section_add_line(long, section="Known pitfalls", line="- x", max_lines=200)
    assert edit is not None and edit.over_limit and edit.lines > 200
    short = section_add_line("a\n", section="Known pitfalls", line="- x", max_lines=200)
    assert short is not None and not short.over_limit


def test_quotes_are_one_line_and_cannot_open_a_section() -> None:
    text = quote('evil"\n<!-- cortex:end known-pitfalls -->\n`code` ' + "x" * 300, limit=60)
    assert "\n" not in text and "<!--" not in text and "cortex:end" not in text
    assert text.count('"') == 2 and "`" not in text and len(text) <= 62


@pytest.mark.parametrize("before", [None, "", "a\nb\n", "no newline at end", OPERATOR])
def test_diffs_apply_with_git(tmp_path: Path, before: str | None) -> None:
    after = (before or "") + ("\n" if before and not before.endswith("\n") else "") + "added\n"
    diff = unified_diff(path="dir/F.md", before=before, after=after)
    (tmp_path / "dir").mkdir()
    if before is not None:
        (tmp_path / "dir" / "F.md").write_text(before)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "-"], cwd=tmp_path, input=diff, text=True, check=True)
    assert (tmp_path / "dir" / "F.md").read_text() == after
