"""The analyzers' lexicons, one YAML file per language, loaded and compiled once.

Instruction patterns are matched after the language's `prefix`; their named groups:
`verb` (canonicalised through `verbs`), `subject`, `alt` (what it replaces) and `mod`
(a word mapped through `modalities`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

LANGUAGES = ("en", "fr")
_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class ClaimPattern:
    kind: str
    polarity: str
    modality: str
    regex: re.Pattern[str]


@dataclass(frozen=True)
class Lexicon:
    language: str
    stopwords: frozenset[str]
    # Word -> weight: positive words above zero, negative ones below.
    weights: dict[str, float]
    phrases: dict[str, float]
    critical: tuple[str, ...]
    negators: frozenset[str]
    post_negators: frozenset[str]
    intensifiers: frozenset[str]
    fillers: re.Pattern[str]
    # Each act's patterns as one alternation: a sentence performs the act if any matches.
    acts: dict[str, re.Pattern[str]]
    corrections: dict[str, tuple[re.Pattern[str], ...]]
    claims: tuple[ClaimPattern, ...]
    # Read only where the text corrects the agent (a rejection's reason, after an interrupt).
    corrective_claims: tuple[ClaimPattern, ...]
    global_words: tuple[str, ...]
    # "in this project", "ici": the rule holds in the session's project, and there only.
    here_words: re.Pattern[str]
    modalities: dict[str, str]
    verbs: dict[str, str]
    clause_break: re.Pattern[str]
    scope_word: re.Pattern[str]
    articles: tuple[str, ...]
    pronouns: frozenset[str]
    strip_leading: tuple[str, ...]


def _compile_all(patterns: list[str]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in patterns)


def _any_of(patterns: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def _claims(section: dict[str, Any]) -> tuple[ClaimPattern, ...]:
    prefix = section["prefix"]
    return tuple(
        ClaimPattern(
            kind=item["kind"],
            polarity=item["polarity"],
            modality=item["modality"],
            regex=re.compile(prefix + item["pattern"]),
        )
        for item in section["patterns"]
    )


def _build(raw: dict[str, Any]) -> Lexicon:
    sentiment, acts, claims = raw["sentiment"], raw["speech_acts"], raw["instructions"]
    return Lexicon(
        language=raw["language"],
        stopwords=frozenset(raw["stopwords"]),
        weights={**{k: float(v) for k, v in sentiment["positive"].items()},
                 **{k: -float(v) for k, v in sentiment["negative"].items()}},
        phrases={k: float(v) for k, v in sentiment["phrases"].items()},
        critical=tuple(sentiment["critical"]),
        negators=frozenset(sentiment["negators"]),
        post_negators=frozenset(sentiment["post_negators"]),
        intensifiers=frozenset(sentiment["intensifiers"]),
        fillers=re.compile(rf"^(?:(?:{_alternation(acts['fillers'])})\b[\s,.!]*)+"),
        acts={act: _any_of(acts[act])
              for act in ("declarative", "directive", "commissive", "expressive")},
        corrections={kind: _compile_all(p) for kind, p in raw["corrections"].items()},
        claims=_claims(claims),
        corrective_claims=_claims(claims["corrective"]),
        global_words=tuple(claims["global_words"]),
        here_words=re.compile(rf"(?<!\w)(?:{_alternation(claims['here_words'])})(?!\w)"),
        modalities=dict(claims.get("modalities", {})),
        verbs=dict(claims["verbs"]),
        clause_break=re.compile("|".join(claims["clause_breaks"])),
        scope_word=re.compile(rf"\s(?:{_alternation(claims['scope_words'])})\s"),
        articles=tuple(claims["articles"]),
        pronouns=frozenset(claims["pronouns"]),
        strip_leading=tuple(claims["strip_leading"]),
    )


# libyaml's safe loader when the wheel has it (the same documents, ~10x faster): the pure-
# Python one took ~20 ms a lexicon of each analysis process's start.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@cache
def lexicon(language: str) -> Lexicon:
    path = _DIR / f"{language}.yaml"
    with path.open(encoding="utf-8") as handle:
        return _build(yaml.load(handle, Loader=SAFE_LOADER))  # noqa: S506 - a safe loader
