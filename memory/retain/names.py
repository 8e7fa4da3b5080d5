"""Do two names of people agree? Embeddings alone cannot tell "Anya Petrova" from "Anna
Petrov" (cosine 0.94); a person-like namespace also asks the names to agree token by token.

Two names agree when the shorter has at least two tokens (or both have the same tokens) and
each of its tokens matches a distinct token of the other: equal, or an initial ("A." for
"Anya"). Order does not matter ("Petrova, Anya"), accents and punctuation neither.

A first name alone ("Anya") is not such a name: the Retain Job resolves it to the one person
of that first name it knows ("Anya Petrova"), and to no one when it knows none or several
(`given_name`, `first_name_of`); a full name said after the first name alone is that person
when no one else of the first name is known by a full name.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath

from memory.retain.text import normalize


def _tokens(name: str) -> list[str]:
    return normalize(name.replace(".", " ")).split()


def _matches(short: str, long: str) -> bool:
    if short == long:
        return True
    if len(short) == 1 and long.startswith(short):
        return True
    return len(long) == 1 and short.startswith(long)


def names_agree(left: str, right: str) -> bool:
    a, b = _tokens(left), _tokens(right)
    if not a or not b:
        return False
    if sorted(a) == sorted(b):
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) < 2:
        return False
    pool = list(long)
    for token in sorted(short, key=len, reverse=True):
        match = next((other for other in pool if _matches(token, other)), None)
        if match is None:
            return False
        pool.remove(match)
    # Initials alone never make a match: at least one full token must be shared.
    return any(len(token) > 1 and token in long for token in short)


def given_name(name: str) -> str:
    """The normalized first name a name is, when it is one word alone ("Anya" -> "anya"); ""
    for a longer name, an initial or anything not a word."""
    tokens = _tokens(name)
    if len(tokens) != 1 or len(tokens[0]) < 2 or not tokens[0].isalpha():
        return ""
    return tokens[0]


def first_name_of(normalized: str) -> str:
    """The first word of a normalized name of two words or more ("anya petrova" -> "anya"),
    the first name it answers to alone; "" otherwise."""
    tokens = normalized.split()
    return tokens[0] if len(tokens) >= 2 and len(tokens[0]) >= 2 else ""


def namespace_matches(namespace: str, patterns: Iterable[str]) -> bool:
    """Whether a namespace path is one of `patterns` (or under one; `*` is any one part)."""
    parts = namespace.split(":")
    for pattern in patterns:
        segments = pattern.split(":")
        if len(parts) >= len(segments) and all(
                s in ("*", p) for s, p in zip(segments, parts, strict=False)):
            return True
    return False


def name_embedding_text(name: str, *, namespace: str, path_names: Iterable[str]) -> str:
    """What the embedder reads for a name: the name (its first 300 characters), or nothing
    for a file path ("billing-api/src/users_old.py", a name with a '/' in one of
    `path_names`). Full-text finds a file by its path's words and recall gives it the
    vector's share those words earn; the files' vectors were 86% of what a first import
    embedded (bench/path_vectors.py, docs/retain.md)."""
    if "/" in name and len(PurePosixPath(name).parts) >= 2 and namespace_matches(
            namespace, path_names):
        return ""
    return name[:300]
