"""A proposal's file change from its items: the rules added to the allowlist, the lines
added to an owned section. What lets the operator drop items: the change is made again from
the file and the items kept."""

from __future__ import annotations

from collections.abc import Sequence

from actuation.formats.allowlist import allow_rules_add
from actuation.formats.claude_md import section_add_lines

ALLOWLIST = "allowlist"
SECTION_TYPES = frozenset({"claude_md", "memory_entry"})


class NotNarrowable(ValueError):
    """This kind of change is one piece: it is approved or rejected whole."""


def items_after(*, diff_type: str, before: str | None, section: str, lines: Sequence[str],
                max_lines: int) -> str | None:
    """The file with these items' lines added; None when they are all there already."""
    if diff_type == ALLOWLIST:
        return allow_rules_add(before, rules=list(lines))
    if diff_type in SECTION_TYPES and section:
        edit = section_add_lines(before, section=section, lines=list(lines),
                                 max_lines=max_lines)
        return None if edit is None else edit.after
    raise NotNarrowable(f"a {diff_type} change is approved or rejected whole")


SHOWN_IN_TITLE = 3


def items_title(*, diff_type: str, keys: Sequence[str], lines: Sequence[str]) -> str:
    """The title of a grouped change from its items: "Allow 2 granted rules: Bash(git
    status:*), Bash(ls:*)", "Known pitfalls: Read a file before editing or writing it and
    1 more" (a pitfall's line starts with what to do, up to its first full stop)."""
    count = len(keys)
    if diff_type == ALLOWLIST:
        noun = "rule" if count == 1 else "rules"
        more = f" and {count - SHOWN_IN_TITLE} more" if count > SHOWN_IN_TITLE else ""
        return f"Allow {count} granted {noun}: {', '.join(keys[:SHOWN_IN_TITLE])}{more}"
    first = lines[0].lstrip("- ").split(". ", 1)[0].rstrip(".") if lines else ""
    more = f" and {count - 1} more" if count > 1 else ""
    return f"Known {'pitfall' if count == 1 else 'pitfalls'}: {first}{more}"
