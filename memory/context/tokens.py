"""A token estimate that never undercounts what a BPE tokenizer produces for prompt text.

Every non-ASCII character counts as many tokens as its UTF-8 bytes (a byte-level BPE emits
at most one token per byte; CJK, emoji and other non-Latin scripts are costed at that
ceiling). ASCII text is counted per run: a word (lowercase, or capitalised) of length L counts
ceil(L / 3) (English words average about 4.7 characters and 1.3 tokens), any other run of
letters and digits (numbers, hashes, identifiers, mixed case) ceil(L / 2), every other ASCII
character (punctuation, newline) one token, and a space none when a word follows it
(tokenizers glue the space to the next word), one otherwise."""

from __future__ import annotations

import re

_RUN = re.compile(r"[A-Za-z0-9]+|[^A-Za-z0-9]")
_WORD = re.compile(r"[A-Z]?[a-z]+")
WORD_CHARS_PER_TOKEN = 3
OTHER_CHARS_PER_TOKEN = 2


def tokens_estimate(text: str) -> int:
    total = 0
    runs = _RUN.findall(text)
    for index, run in enumerate(runs):
        if run[0].isascii() and run[0].isalnum():
            per = WORD_CHARS_PER_TOKEN if _WORD.fullmatch(run) else OTHER_CHARS_PER_TOKEN
            total += -(-len(run) // per)
        elif run == " ":
            following = runs[index + 1] if index + 1 < len(runs) else ""
            total += 0 if following[:1].isascii() and following[:1].isalnum() else 1
        elif run.isascii():
            total += 1
        else:
            total += len(run.encode("utf-8"))
    return total
