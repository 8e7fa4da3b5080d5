"""Text helpers shared by the language analyzers: normalising, sentences, tokens, language."""

from __future__ import annotations

import re
from functools import lru_cache

from insight.lexicons import LANGUAGES, lexicon

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'", "\u00a0": " "})
_FENCED_CODE = re.compile(r"```.*?(?:```|$)", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_SPACES = re.compile(r"[ \t]+")
# A sentence ends at a newline, or at . ! ? followed by a capital ("e.g. 3.11" goes on).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[^a-zà-ÿ0-9])|\n+")
_TOKEN = re.compile(r"\w+(?:'\w+)*|[!?]")
_ELISION = re.compile(r"^(?:[a-z]|qu)'(?=\w)")
_MARKUP = re.compile(r"^[\s>*#\-+\d.)]*")
_FRENCH_LETTERS = re.compile(r"[éèêàùçâîôûœë]")

MAX_TEXT = 4000
# Texts whose prose, sentences and language are kept: an analysis batch's messages (each
# analyzer reads the batch in turn).
CACHED_TEXTS = 1024


@lru_cache(maxsize=CACHED_TEXTS)
def prose(text: str) -> str:
    """The text without code, with the quotes folded; the first MAX_TEXT characters.
    (Cached: several analyzers read the same message.)"""
    text = _FENCED_CODE.sub(" ", text[: MAX_TEXT * 2])
    text = _INLINE_CODE.sub(lambda m: m.group(0).strip("`"), text)
    return text.translate(_APOSTROPHES)[:MAX_TEXT]


@lru_cache(maxsize=CACHED_TEXTS)
def sentences(text: str) -> tuple[str, ...]:
    """Lowercased sentences of prose, without list or heading markup. (Cached: the speech
    acts, the corrections and the instructions read a prompt's.)"""
    out = []
    for part in _SENTENCE_END.split(prose(text)):
        part = _SPACES.sub(" ", _MARKUP.sub("", part)).strip().casefold()
        if part:
            out.append(part)
    return tuple(out)


def tokens(text: str) -> list[str]:
    """Word tokens; French elisions split off ("n'aime" -> "n'", "aime")."""
    out: list[str] = []
    for token in _TOKEN.findall(text.casefold()):
        elided = _ELISION.match(token) if "'" in token else None
        if elided:
            out.extend((elided.group(0), token[elided.end():]))
        else:
            out.append(token)
    return out


@lru_cache(maxsize=CACHED_TEXTS)
def language_of(text: str) -> str:
    words = tokens(prose(text)[:1000])
    scores = {lang: sum(w in lexicon(lang).stopwords for w in words) for lang in LANGUAGES}
    if _FRENCH_LETTERS.search(text[:1000]):
        scores["fr"] += 1
    return "fr" if scores["fr"] > scores["en"] else "en"


def excerpt(text: str, limit: int = 120) -> str:
    flat = " ".join(prose(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def reading_order(text: str) -> tuple[str, ...]:
    """The text's language first, then the others (short texts are often ambiguous)."""
    detected = language_of(text)
    return (detected, *(lang for lang in LANGUAGES if lang != detected))
