"""Text from sources (claims, topics, memories, names) goes into a document as data: cleaned
of control and direction characters, on one line, cut, and quoted in a code span (a name in
a heading stays as it is when no character of it is markup), so that nothing a transcript
said reads as markup or as an instruction of the document's own. What the document says in
its own words is meant to be read: counted nouns agree with their number, a scope is the
project's name."""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime

from memory.retain.extraction import GLOBAL, HERE, scope_projects, scope_split

_WHITESPACE = re.compile(r"\s+")
_BACKTICKS = re.compile(r"`+")
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
ELLIPSIS = "…"


_DROPPED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})


def _kept(ch: str) -> str | None:
    """What `clean` keeps of a character: a space for whitespace, nothing for the dropped
    categories, else the character."""
    if ch.isspace():
        return " "
    return None if unicodedata.category(ch) in _DROPPED else ch


# The same rule for every ASCII character, as one str.translate table: most text is ASCII,
# and a category looked up per character was most of the compiled truths' rendering.
_ASCII = {code: _kept(chr(code)) for code in range(128)}


def clean(text: str, *, limit: int) -> str:
    """One line: no control, format (bidi overrides, zero-width) or separator characters,
    whitespace collapsed, at most `limit` characters (cut ones end with an ellipsis)."""
    kept = text.translate(_ASCII) if text.isascii() else "".join(filter(None, map(_kept, text)))
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


# Letters, digits, spaces and the punctuation no markdown construct starts with in the middle
# of a heading: a name of these alone is written as it is.
_PLAIN_NAME = re.compile(r"[\w\s.,:;/()'@+-]+")


def heading_name(text: str, *, limit: int) -> str:
    """A name for a heading: as it is when it holds no markup character (`billing-api`,
    `Anya Petrova`), else quoted in a code span; never backslash-escaped."""
    line = clean(text, limit=limit)
    if not line:
        return "(unnamed)"
    if _PLAIN_NAME.fullmatch(line) and "_" not in line:
        return line
    return quoted(line, limit=limit)


def counted(count: int, singular: str, plural: str) -> str:
    """`1 fact`, `3 facts`, `0 facts`."""
    return f"{count} {singular if count == 1 else plural}"


def scope_words(scope: str) -> str:
    """Where a claim holds, in words: `every project`, `billing-api`, `billing-api and
    web-dashboard`, with what the sentence narrowed it to (`billing-api, in the tests`)."""
    where, qualifiers = scope_split(scope)
    projects = scope_projects(scope)
    if projects:
        place = " and ".join(", ".join(projects).rsplit(", ", 1))
    else:
        place = "every project" if where == GLOBAL else where
    said = [q for q in qualifiers.split("; ") if q and q != HERE]
    return ", ".join([place, *said])


def escaped(text: str, *, limit: int) -> str:
    """Cleaned text with every ASCII punctuation character backslash-escaped (a heading)."""
    return _PUNCTUATION.sub(r"\\\1", clean(text, limit=limit)) or "(unnamed)"


def when(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def day(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%d")
