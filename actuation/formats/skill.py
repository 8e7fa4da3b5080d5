"""`.claude/skills/<name>/SKILL.md`: front matter as Claude Code reads it (name, description),
then the steps."""

from __future__ import annotations

import re
from collections.abc import Sequence

NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
XML_TAG = re.compile(r"<\s*/?\s*[A-Za-z!?][^>]*>")
MAX_NAME, MAX_DESCRIPTION, MAX_BODY_LINES = 64, 1024, 500


def skill_path(name: str) -> str:
    return f".claude/skills/{name}/SKILL.md"


def skill_problems(*, name: str, description: str, body: str, folder: str) -> list[str]:
    """What makes this SKILL.md invalid (empty when it is valid)."""
    problems = []
    if not 1 <= len(name) <= MAX_NAME or not NAME.fullmatch(name) or "--" in name:
        problems.append("name: 1-64 lowercase letters, digits and single hyphens")
    if name != folder:
        problems.append("name must equal its folder's name")
    if not 1 <= len(description) <= MAX_DESCRIPTION or "\n" in description:
        problems.append("description: 1-1024 characters on one line")
    if XML_TAG.search(name) or XML_TAG.search(description):
        problems.append("no XML tags in the front matter")
    if len(body.splitlines()) >= MAX_BODY_LINES:
        problems.append("the body must stay under 500 lines")
    return problems


def skill_render(*, name: str, description: str, title: str, steps: Sequence[str],
                 notes: Sequence[str] = ()) -> str:
    body = [f"# {title}", "", "Steps:", ""]
    body += [f"{i}. {step}" for i, step in enumerate(steps, 1)]
    if notes:
        body += ["", *notes]
    front = ["---", f"name: {name}", f"description: {description}", "---", ""]
    return "\n".join(front + body) + "\n"


def skill_front_matter(text: str) -> dict[str, str]:
    """The front matter's keys, as a reader of SKILL.md would take them."""
    lines = text.splitlines()
    if not lines or lines[0] != "---":
        return {}
    out = {}
    for line in lines[1:]:
        if line == "---":
            break
        key, _, value = line.partition(":")
        out[key.strip()] = value.strip()
    return out
