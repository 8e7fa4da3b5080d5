"""Where a secret could be: one pass over a text finds every trigger word the rules need.

Every rule's match contains a trigger word (a lowercase literal such as `token` or `sk-`), so
a text without one needs no rule at all, and a text with some needs only the rules those words
gate. The words are found by one Aho-Corasick scan of the text folded to lowercase the way the
`(?i)` rules compare it: `str.lower()` plus the four non-ASCII letters that Python's regex
engine matches to ASCII ones (`İ`, `ı`, `ſ`, the Kelvin sign). The fold keeps every character
at its index, so a word's position is its position in the original text.
"""

from __future__ import annotations

from collections.abc import Iterable

import ahocorasick_rs

WORDS = (
    "private key", "eyj", "sk-", "ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_",
    "akia", "asia", "xox", "hooks.slack", "aiza", "://", "authorization", "bearer",
    "secret", "passw", "token", "api_key", "api-key", "apikey", "access_key", "access-key",
    "accesskey", "private_key", "private-key", "privatekey", "credential",
)
# `token` counts only when not followed by `s` or `iz` (tokens, tokenize): as in the rules.
_NOT_AFTER_TOKEN = ("s", "iz")

_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
_FOLD_UTF8 = tuple(
    (char.encode(), folded.encode()) for char, folded in
    (("\u0130", "i"), ("\u0131", "i"), ("\u017f", "s"), ("\u212a", "k"))
)
_TEXT_SCAN = ahocorasick_rs.AhoCorasick(list(WORDS))
# Leftmost-first is ~3x faster (it uses a prefilter) but does not report a word that overlaps
# one reported before it: good enough to answer "is there any?".
_BYTES_FIRST = ahocorasick_rs.BytesAhoCorasick(
    [word.encode() for word in WORDS], matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST
)
# The same words for folded texts that are ASCII (most are): their bytes index as their
# characters do, and the bytes scan is ~3x faster than the one over a str.
_BYTES_ALL = ahocorasick_rs.BytesAhoCorasick([word.encode() for word in WORDS])
_TOKEN = WORDS.index("token")


def _can_hide(word: str) -> bool:
    """Whether another word (or itself again) can start inside `word`: a word a
    leftmost-first scan reports hides the hits that start within it only then."""
    return any(other.startswith(word[i:]) or word[i:].startswith(other)
               for i in range(1, len(word)) for other in WORDS)


# No word is a prefix of another, so a leftmost-first scan misses only hits inside the
# words it reports; when none of them can hide one (`token`, `://`, `sk-`, ... cannot),
# its hits are all of them.
_HIDING = frozenset(index for index, word in enumerate(WORDS) if _can_hide(word))

Hit = tuple[str, int]  # (trigger word, index in the text)


def fold(text: str) -> str:
    """Lowercase, as the `(?i)` rules compare; same length, same indices."""
    return text.lower() if text.isascii() else text.translate(_FOLD).lower()


def hits(folded: str) -> list[Hit]:
    """Every trigger word in a folded text, overlapping ones included, in order."""
    if folded.isascii():
        data = folded.encode()
        matches = _BYTES_FIRST.find_matches_as_indexes(data)  # the fast scan
        if any(index in _HIDING for index, _start, _end in matches):
            matches = _BYTES_ALL.find_matches_as_indexes(data, overlapping=True)
    else:
        matches = _TEXT_SCAN.find_matches_as_indexes(folded, overlapping=True)
    found = []
    for index, start, end in matches:
        if index == _TOKEN and folded.startswith(_NOT_AFTER_TOKEN, end):
            continue
        found.append((WORDS[index], start))
    return found


# For JSON as orjson writes it: the trigger words and the escaped NUL sanitize drops. No word
# holds a backslash, so neither hides the other from a leftmost-first scan.
_JSON_FIRST = ahocorasick_rs.BytesAhoCorasick(
    [*(word.encode() for word in WORDS), b"\\u0000"],
    matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST,
)


_NUL_ESCAPE = len(WORDS)


def json_scan(data: bytes) -> tuple[bool, bool]:
    """(json_has_trigger(data), whether it holds an escaped NUL `\\u0000`), in one scan."""
    folded = _json_folded(data)
    trigger = nul = False
    for index, _start, end in _JSON_FIRST.find_matches_as_indexes(folded):
        if index == _NUL_ESCAPE:
            nul = True
        elif index != _TOKEN or not folded.startswith((b"s", b"iz"), end):
            trigger = True
    return trigger, nul


def json_has_trigger(data: bytes) -> bool:
    """Whether a JSON text (UTF-8) holds a trigger word anywhere.

    Leftmost-first, not overlapping: a word hidden behind another starts inside it, and no
    word starts inside `token` (the one that may not count), so the first word that counts
    is always reported.
    """
    return _counts(_json_folded(data), _BYTES_FIRST)


def _json_folded(data: bytes) -> bytes:
    folded = data.lower()
    if not data.isascii():
        for char, ascii_char in _FOLD_UTF8:
            folded = folded.replace(char, ascii_char)
    return folded


def _counts(folded: bytes, scan: ahocorasick_rs.BytesAhoCorasick) -> bool:
    """Whether the leftmost-first scan finds a word that counts (see json_has_trigger)."""
    for index, _start, end in scan.find_matches_as_indexes(folded):
        if index != _TOKEN or not folded.startswith((b"s", b"iz"), end):
            return True
    return False


_RUN = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")
_BEFORE_KEY = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
_QUOTES = frozenset("\"'")


def assignment_starts(folded: str, names: Iterable[int]) -> list[int]:
    """Where a `[\"']?[a-z0-9_.-]*NAME` match not preceded by `[a-z0-9_]` can start, given
    where the names are: in the run of name characters before a name (or at the quote just
    before that run), where the character before is not a letter, digit or underscore.
    Linear in the text: each index is looked at once."""
    starts: list[int] = []
    previous, previous_run, floor = -1, 0, 0
    for name in sorted(set(names)):
        index = name
        while index > previous and index > 0 and folded[index - 1] in _RUN:
            index -= 1
        run = previous_run if index == previous else index
        low = run - 1 if run > 0 and folded[run - 1] in _QUOTES else run
        for start in range(max(low, floor), name + 1):
            if start == 0 or folded[start - 1] not in _BEFORE_KEY:
                starts.append(start)
        previous, previous_run, floor = name, run, name + 1
    return starts
