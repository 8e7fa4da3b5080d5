"""Text from sources (claims, topics, memories, names) goes into a document as data: cleaned
of control and direction characters, on one line, cut, and quoted in a code span (or, in a
heading, with every markdown character escaped), so that nothing a transcript said reads as
markup or as an instruction of the document's own."""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime

_WHITESPACE = re.compile(r"\s+")
_BACKTICKS = re.compile(r"`+")
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
ELLIPSIS = "…"


def clean(text: str, *, limit: int) -> str:
    """One line: no control, format (bidi overrides, zero-width) or separator characters,
    whitespace collapsed, at most `limit` characters (cut ones end with an ellipsis)."""
    kept = "".join(
        " " if ch.isspace() else ch for ch in text
        if ch.isspace() or unicodedata.category(ch) not in {"Cc", "Cf", "Cs", "Co", "Cn"})
    line = _WHITESPACE.sub(" ", kept).strip()
    if len(line) > limit:
        line = line[: max(0, limit - 1)].rstrip() + ELLIPSIS
    return line


def quoted(text: str, *, limit: int) -> str:
    """A code span holding the cleaned text: a backtick run longer than any inside it."""
    line = clean(text, limit=limit)
    if not line:
        return "(empty)"
    longest = max((len(run) for run in _BACKTICKS.findall(line)), default=0)
    fence = "`" * (longest + 1)
    if line.startswith("`") or line.endswith("`"):
        line = f" {line} "
    return f"{fence}{line}{fence}"


def escaped(text: str, *, limit: int) -> str:
    """Cleaned text with every ASCII punctuation character backslash-escaped (a heading)."""
    return _PUNCTUATION.sub(r"\\\1", clean(text, limit=limit)) or "(unnamed)"


def when(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def day(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%d")
