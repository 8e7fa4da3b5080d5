"""Operator instructions and preferences: "always use X", "never use library Y",
"n'utilise jamais X", "je préfère X à Y" -> `instruction` on `agent:<agent>:instruction`,
`preference` on `self:operator:preference`, with the claim's polarity and subject.

Claims are written with canonical English verbs ("use pnpm") whatever the language, so
that "always use pnpm" and "n'utilise jamais pnpm" are the same claim with opposite
polarities (what the Retain Job's conflict detection compares)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from insight.analyzers import namespaces
from insight.analyzers.base import Analyzer, Event, ObservationDraft
from insight.analyzers.events import (
    actor,
    base_agent,
    draft,
    is_operator_prompt,
    message_text,
    observed,
)
from insight.analyzers.sentiment import sentiment_of
from insight.analyzers.text import excerpt, reading_order, sentences
from insight.lexicons import ClaimPattern, Lexicon, lexicon

MAX_SUBJECT_WORDS = 8
_TRIM = " '\"*_`.«»"
_ELIDED_ARTICLE = re.compile(r"^(?:l|d)'")


@dataclass(frozen=True)
class Claim:
    kind: str
    polarity: str
    modality: str
    verb: str
    subject: str
    alternative: str
    scope: str
    sentence: str

    @property
    def text(self) -> str:
        return f"{self.verb} {self.subject}" if self.kind == "instruction" else self.subject


def _subject_and_scope(raw: str | None, lex: Lexicon) -> tuple[str, str]:
    """("mocks", "in the integration tests") from "mocks in the integration tests, because"."""
    text = lex.clause_break.split(raw or "", maxsplit=1)[0].strip(_TRIM)
    for prefix in lex.strip_leading:
        if text.startswith(prefix):
            text = text[len(prefix):]
    scope = ""
    if found := lex.scope_word.search(text):
        text, scope = text[: found.start()], text[found.start():].strip(_TRIM)
    words = text.split()
    while words and words[0] in lex.articles:
        words.pop(0)
    if words:
        words[0] = _ELIDED_ARTICLE.sub("", words[0])
    subject = " ".join(words[:MAX_SUBJECT_WORDS]).strip(_TRIM)
    if not subject or any(subject == p or subject.startswith(p + " ") for p in lex.pronouns):
        return "", ""
    return subject, scope


def _claim(sentence: str, pattern: ClaimPattern, lex: Lexicon) -> Claim | None:
    match = pattern.regex.search(sentence)
    if not match:
        return None
    groups = match.groupdict()
    subject, scope = _subject_and_scope(groups.get("subject"), lex)
    if not subject:
        return None
    verb = groups.get("verb") or ("prefer" if pattern.kind == "preference" else "use")
    return Claim(
        kind=pattern.kind,
        polarity=pattern.polarity,
        modality=lex.modalities.get(groups.get("mod") or "", pattern.modality),
        verb=lex.verbs.get(verb, verb),
        subject=subject,
        alternative=_subject_and_scope(groups.get("alt"), lex)[0],
        scope=scope,
        sentence=sentence,
    )


# "Always use uv, never pip": the second clause drops the verb and flips the polarity.
_ELLIPTIC = {
    "en": re.compile(r"(?:[,;]|\b(?:and|but)\b)\s*(?P<marker>never|always|not)\s+"
                     r"(?P<subject>[\w][\w.+-]*)", re.IGNORECASE),
    "fr": re.compile(r"(?:[,;]|\b(?:et|mais)\b)\s*(?P<marker>jamais|toujours|pas)\s+"
                     r"(?:de\s+|d')?(?P<subject>[\w][\w.+-]*)", re.IGNORECASE),
}
_POSITIVE_MARKERS = frozenset({"always", "toujours"})


def _elliptic(first: Claim, language: str) -> list[Claim]:
    """The verb-less clauses that follow an instruction, as claims of their own."""
    pattern = _ELLIPTIC.get(language)
    if first.kind != "instruction" or pattern is None:
        return []
    claims = []
    for match in pattern.finditer(first.sentence):
        subject = match["subject"].strip(_TRIM)
        if subject.casefold() in {first.subject.casefold(), first.verb.casefold()}:
            continue
        polarity = ("positive" if match["marker"].casefold() in _POSITIVE_MARKERS
                    else "negative")
        claims.append(Claim(kind=first.kind, polarity=polarity, modality=first.modality,
                            verb=first.verb, subject=subject, alternative="", scope="",
                            sentence=first.sentence))
    return claims


def claims_in(text: str, language: str) -> list[Claim]:
    """The instructions and preferences a text states: one per sentence, plus the verb-less
    clauses that follow an instruction ("always use uv, never pip")."""
    lex = lexicon(language)
    found = []
    for sentence in sentences(text):
        for pattern in lex.claims:
            if claim := _claim(sentence, pattern, lex):
                found.extend([claim, *_elliptic(claim, language)])
                break
    return found


def claims_and_language(text: str) -> tuple[list[Claim], str]:
    """Claims in the text's language; short texts are also read in the other language."""
    languages = reading_order(text)
    for language in languages:
        if claims := claims_in(text, language):
            return claims, language
    return [], languages[0]


def _observe(event: Event, claim: Claim, language: str) -> ObservationDraft:
    agent = base_agent(event)
    instruction = claim.kind == "instruction"
    sentiment, score = sentiment_of(claim.sentence, language)
    body = {"claim": claim.text, "subject": claim.subject, "polarity": claim.polarity,
            "modality": claim.modality, "verb": claim.verb, "text": excerpt(claim.sentence, 300),
            "language": language}
    if claim.alternative:
        body["alternative"] = claim.alternative
    if claim.scope:
        body["scope"] = claim.scope
    if instruction:
        body["agent"] = agent
    return draft(
        event,
        category=claim.kind,
        target_namespace=namespaces.instruction(agent) if instruction else namespaces.PREFERENCE,
        topic=excerpt(claim.sentence),
        actors=(actor("operator", "speaker"), actor(agent, "addressee")) if instruction
        else (actor("operator", "holder"),),
        sentiment=sentiment,
        sentiment_score=score,
        payload=body,
        key=f"{event['id']}:{claim.kind}:{claim.polarity}:{claim.text}",
    )


def analyze(events: Sequence[Event]) -> list[ObservationDraft]:
    drafts: list[ObservationDraft] = []
    for event in observed(events):
        if not is_operator_prompt(event):
            continue
        claims, language = claims_and_language(message_text(event))
        drafts.extend(_observe(event, claim, language) for claim in claims)
    return drafts


ANALYZER = Analyzer(name="instructions", sources=("claude-code",), analyze=analyze)
