"""`clean` (memory/compiled/text.py) keeps a document's quoted text on one line, without
control, format, private-use, surrogate or unassigned characters; its ASCII path (one
str.translate) answers what the character-by-character rule answers."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from memory.compiled.text import ELLIPSIS, clean

LIMIT = 40
DROPPED = {"Cc", "Cf", "Cs", "Co", "Cn"}  # control, format, surrogate, private use, unassigned


def _by_the_rule(text: str, limit: int) -> str:
    """The rule as the docstring states it, one character at a time."""
    kept = "".join(" " if ch.isspace() else ch for ch in text
                   if ch.isspace() or unicodedata.category(ch) not in DROPPED)
    line = re.sub(r"\s+", " ", kept).strip()
    return line if len(line) <= limit else line[:limit - 1].rstrip() + ELLIPSIS


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_ascii_text_is_cleaned_by_the_rule(text: str) -> None:
    assert clean(text, limit=LIMIT) == _by_the_rule(text, LIMIT)


@given(st.text())
def test_any_text_is_cleaned_by_the_rule(text: str) -> None:
    assert clean(text, limit=LIMIT) == _by_the_rule(text, LIMIT)


def test_controls_go_and_whitespace_folds() -> None:
    assert clean("a\x00b\x1bc\x7f \t\n\x1fd\u200be\u202ef", limit=LIMIT) == "abc def"
