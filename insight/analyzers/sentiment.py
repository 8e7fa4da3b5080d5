"""Lexicon sentiment, English and French: a label (neutral / positive / negative / critical)
and a score in [-1, 1]. Negation flips and damps a word (VADER's 0.74), an intensifier
before a word raises it by half, exclamation marks amplify, a critical marker wins."""

from __future__ import annotations

import math

from insight.analyzers.text import prose, tokens
from insight.lexicons import Lexicon, lexicon

NEGATION_FACTOR = -0.74
NEGATION_WINDOW = 3
INTENSIFIER_BOOST = 1.5
NORMALISATION_ALPHA = 15.0
POSITIVE_AT, NEGATIVE_AT, CRITICAL_AT, MARKER_CAP = 0.25, -0.25, -0.85, -0.75


def _phrase_weights(text: str, lex: Lexicon) -> tuple[float, str]:
    total = 0.0
    for phrase, weight in lex.phrases.items():
        if phrase in text:
            total += weight * text.count(phrase)
            text = text.replace(phrase, " ")
    return total, text


def _word_weight(words: list[str], index: int, lex: Lexicon) -> float:
    word = words[index]
    weight = lex.weights.get(word, 0.0)
    if not weight:
        return 0.0
    before = words[max(0, index - NEGATION_WINDOW): index]
    after = words[index + 1: index + 2]
    if any(w in lex.negators for w in before) or any(w in lex.post_negators for w in after):
        weight *= NEGATION_FACTOR
    if index and words[index - 1] in lex.intensifiers:
        weight *= INTENSIFIER_BOOST
    return weight


def _label(score: float, critical: bool) -> str:
    if critical or score <= CRITICAL_AT:
        return "critical"
    if score <= NEGATIVE_AT:
        return "negative"
    return "positive" if score >= POSITIVE_AT else "neutral"


def sentiment_of(text: str, language: str) -> tuple[str, float]:
    lex = lexicon(language)
    flat = " ".join(prose(text).casefold().split())
    critical = any(map(flat.__contains__, lex.critical))
    total, rest = _phrase_weights(flat, lex)
    words = tokens(rest)
    weights = lex.weights
    total += sum(_word_weight(words, i, lex) for i, word in enumerate(words) if word in weights)
    if total:
        total *= 1 + 0.15 * min(flat.count("!"), 3)
    score = total / math.sqrt(total * total + NORMALISATION_ALPHA)
    if critical:
        score = min(score, MARKER_CAP)
    return _label(score, critical), round(score, 3)
