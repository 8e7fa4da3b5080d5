"""CLAUDE.md (and the memory file): Cortex writes only inside sections it owns and marks,
never the operator's text; a line already in the file is not added again."""

from __future__ import annotations

import dataclasses
import re

from actuation.formats.quoting import normalized

BEGIN = "<!-- cortex:begin {slug} (maintained by Cortex through its approval queue) -->"
END = "<!-- cortex:end {slug} -->"


@dataclasses.dataclass(frozen=True)
class SectionEdit:
    after: str
    lines: int
    over_limit: bool


def section_slug(section: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", section.casefold()).strip("-") or "cortex"


def line_present(text: str, line: str) -> bool:
    wanted = normalized(line)
    return any(normalized(existing) == wanted for existing in text.splitlines())


def _bounds(lines: list[str], slug: str) -> tuple[int, int] | None:
    begin_prefix = BEGIN.format(slug=slug).split(" (", 1)[0]
    end = END.format(slug=slug)
    start = next((i for i, line in enumerate(lines) if line.startswith(begin_prefix)), None)
    if start is None:
        return None
    stop = next((i for i in range(start + 1, len(lines)) if lines[i].strip() == end), None)
    return None if stop is None else (start, stop)


def section_add_line(text: str | None, *, section: str, line: str,
                     max_lines: int) -> SectionEdit | None:
    """The file with `line` added to the owned `section` (created at the end of the file
    when absent); None when the line is already in the file."""
    return section_add_lines(text, section=section, lines=[line], max_lines=max_lines)


def section_add_lines(text: str | None, *, section: str, lines: list[str],
                      max_lines: int) -> SectionEdit | None:
    """The file with `lines` added, in order, to the owned `section` (created at the end of
    the file when absent), those already in the file skipped; None when all of them are."""
    current = text or ""
    seen: set[str] = set()
    new = []
    for line in lines:
        if not line_present(current, line) and normalized(line) not in seen:
            seen.add(normalized(line))
            new.append(line)
    if not new:
        return None
    slug = section_slug(section)
    old = current.splitlines()
    bounds = _bounds(old, slug)
    if bounds is None:
        block = [BEGIN.format(slug=slug), f"## {section}", "", *new, END.format(slug=slug)]
        new_lines = [*old, *([""] if old and old[-1].strip() else []), *block]
    else:
        new_lines = [*old[: bounds[1]], *new, *old[bounds[1]:]]
    after = "\n".join(new_lines) + "\n"
    return SectionEdit(after=after, lines=len(new_lines), over_limit=len(new_lines) > max_lines)


def section_lines(text: str, *, section: str) -> list[str]:
    """The lines inside an owned section (without its markers and heading)."""
    lines = text.splitlines()
    bounds = _bounds(lines, section_slug(section))
    if bounds is None:
        return []
    return [line for line in lines[bounds[0] + 1: bounds[1]]
            if line.strip() and not line.startswith("## ")]
