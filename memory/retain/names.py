"""Do two names of people agree? Embeddings alone cannot tell "Anya Petrova" from "Anna
Petrov" (cosine 0.94); a person-like namespace also asks the names to agree token by token.

Two names agree when the shorter has at least two tokens (or both have the same tokens) and
each of its tokens matches a distinct token of the other: equal, or an initial ("A." for
"Anya"). Order does not matter ("Petrova, Anya"), accents and punctuation neither.
"""

from __future__ import annotations

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
