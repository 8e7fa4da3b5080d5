"""Operator instructions and preferences: "always use X", "never use library Y",
"n'utilise jamais X", "je préfère X à Y", "use pnpm" as the reason of a rejected tool use
(rule_context.py) -> `instruction` on `agent:<agent>:instruction`, `preference` on
`self:operator:preference`, with the claim's polarity, subject, and where it applies (the
project it was said in, or everywhere).

Claims are written with canonical English verbs ("use pnpm") whatever the language, so
that "always use pnpm" and "n'utilise jamais pnpm" are the same claim with opposite
polarities (what the Retain Job's conflict detection compares)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from insight.analyzers import namespaces
from insight.analyzers.base import Analyzer, Event, ObservationDraft
from insight.analyzers.events import (
    actor,
    base_agent,
    draft,
    is_operator_prompt,
    message_text,
    observed,
    tool_calls,
)
from insight.analyzers.projects import project_of
from insight.analyzers.rule_context import (
    applies_to,
    corrective_prompts,
    is_corrective,
    rejections,
    said_with_interrupt,
)
from insight.analyzers.rules import Rule, said_words
from insight.analyzers.sentiment import sentiment_of
from insight.analyzers.text import excerpt, reading_order, sentences
from insight.lexicons import ClaimPattern, Lexicon, lexicon

MAX_SUBJECT_WORDS = 8
_TRIM = " '\"*_`.«»"
_ELIDED_ARTICLE = re.compile(r"^(?:l|d)'")
# "... but I don't want to X": a clause of its own.
_CLAUSES = re.compile(r"(?:[,;]\s*|\s)(?:but|and so|so|mais|donc)\s+|;\s*")
# "we use `git add` but don't change the local folder tree": after a bare "but" (no comma),
# a clause with no subject of its own goes on with the subject of the one before; when that
# subject is the speaker or a group ("we", "I", "they") and no rule was stated, the sentence
# describes what they do, it tells the agent nothing. ("We use pnpm, so don't use npm" and
# "I know, but don't push" still state rules: a comma, or a clause of its own.)
_BARE_BUT = re.compile(r"\s(?:but|mais)\s+")
_DESCRIBED_SUBJECT = {
    "en": re.compile(r"^(?:(?:so|and|ok|okay|well|here|now)[,]?\s+)*(?:we|i|they)\s+"
                     r"(?!(?:want|need|would|should|must|have|expect|ask|wish|told|said)\b)"),
    "fr": re.compile(r"^(?:(?:donc|et|ok|bon|alors)[,]?\s+)*(?:nous|on|je|j'|ils|elles)\s*"
                     r"(?!(?:veux|voudrais|veut|voulons|aimerais|demande|dois|devons|faut)\b)"),
}
# A lead-in before the rule: "I said it before: never use X", "Rappel : toujours ...",
# "Again - run the tests first". Tried only when the whole sentence states no rule.
_LEAD_IN = re.compile(r"\s*:\s+|\s+[-\u2013\u2014]\s+")
# "don't add comments or docstrings", "don't X or Y it": one claim per alternative.
_ALTERNATIVES = re.compile(r"\s+(?:or|nor|ou|ni)\s+")


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
    # What to do instead of a negative rule, said in the same sentence: "use httpx" in
    # "n'utilise jamais requests, utilise httpx".
    instead: str = ""
    # The whole sentence the clause is part of (what the operator's words are quoted from).
    whole: str = ""

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


def _claim(sentence: str, pattern: ClaimPattern, lex: Lexicon) -> list[Claim]:
    match = pattern.regex.search(sentence)
    if not match:
        return []
    groups = match.groupdict()
    verb = groups.get("verb") or ("prefer" if pattern.kind == "preference" else "use")
    raw = groups.get("subject") or ""
    parts = _ALTERNATIVES.split(raw) if pattern.polarity == "negative" else [raw]
    claims = []
    for index, part in enumerate(parts):
        words = part.split()
        own_verb = index > 0 and len(words) > 1 and words[0] == verb
        subject, scope = _subject_and_scope(" ".join(words[1:]) if own_verb else part, lex)
        if not subject:
            continue
        claims.append(Claim(
            kind=pattern.kind,
            polarity=pattern.polarity,
            modality=lex.modalities.get(groups.get("mod") or "", pattern.modality),
            verb=lex.verbs.get(verb, verb),
            subject=subject,
            alternative=_subject_and_scope(groups.get("alt"), lex)[0],
            scope=scope,
            sentence=sentence,
        ))
    return claims


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
                            sentence=first.sentence, whole=first.whole))
    return claims


def _replacing(first: Claim) -> list[Claim]:
    """"use pnpm instead of npm" also says not to use npm: a claim of its own."""
    if first.kind != "instruction" or first.polarity != "positive" or not first.alternative \
            or first.alternative.casefold() == first.subject.casefold():
        return []
    return [Claim(kind=first.kind, polarity="negative", modality=first.modality,
                  verb=first.verb, subject=first.alternative, alternative="", scope="",
                  sentence=first.sentence, whole=first.whole)]


# The clauses after a rule's own: where what to do instead is said.
_LATER_CLAUSES = re.compile(r"\s*[,;:]\s*|\s+(?:but|mais|instead|plutôt)\s+")


def _with_instead(first: Claim, lex: Lexicon) -> Claim:
    """A negative instruction with what the same sentence says to do instead ("never use
    requests, use httpx"; "jamais pip ici : utilise toujours uv")."""
    if first.kind != "instruction" or first.polarity != "negative":
        return first
    positive = [p for p in (*lex.corrective_claims, *lex.claims)
                if p.kind == "instruction" and p.polarity == "positive"]
    for part in _LATER_CLAUSES.split(first.sentence)[1:]:
        for pattern in positive:
            for other in _claim(part.strip(" ."), pattern, lex):
                if other.subject.casefold() != first.subject.casefold():
                    return dataclasses.replace(first, instead=other.text)
    return first


def _own_clauses(sentence: str, language: str) -> list[str]:
    """The clauses after "but", "so", ";" that may state a rule of their own: not one that
    goes on describing what the sentence's subject does ("we use X but don't change Y")."""
    described = _DESCRIBED_SUBJECT.get(language)
    clauses, start, bare = [], 0, False
    for found in _CLAUSES.finditer(sentence):
        if start and not (bare and described is not None and described.match(sentence)):
            clauses.append(sentence[start:found.start()])
        start, bare = found.end(), bool(_BARE_BUT.fullmatch(found.group(0)))
    if start and not (bare and described is not None and described.match(sentence)):
        clauses.append(sentence[start:])
    return clauses


def _sentence_claims(sentence: str, lex: Lexicon, language: str, *,
                     corrective: bool) -> list[Claim]:
    patterns = (*lex.claims, *lex.corrective_claims) if corrective else lex.claims
    for clause in (sentence, *_own_clauses(sentence, language),
                   *_LEAD_IN.split(sentence, 1)[1:]):
        for pattern in patterns:
            if claims := _claim(clause.strip(), pattern, lex):
                return [dataclasses.replace(claim, whole=sentence) for claim in claims]
    return []


def claims_in(text: str, language: str, *, corrective: bool = False) -> list[Claim]:
    """The instructions and preferences a text states: one per sentence (or per clause
    after "but"), plus the verb-less clauses that follow an instruction ("always use uv,
    never pip") and what an instruction replaces. `corrective`: the text corrects the agent
    (a rejection's reason, after an interrupt), where a bare "use X" is a rule."""
    lex = lexicon(language)
    found = []
    for sentence in sentences(text):
        for claim in _sentence_claims(sentence, lex, language, corrective=corrective):
            claim = _with_instead(claim, lex)
            found.extend([claim, *_elliptic(claim, language), *_replacing(claim)])
    return found


def claims_and_language(text: str, *, corrective: bool = False) -> tuple[list[Claim], str]:
    """Claims in the text's language; short texts are also read in the other language."""
    languages = reading_order(text)
    for language in languages:
        if claims := claims_in(text, language, corrective=corrective):
            return claims, language
    return [], languages[0]


def rule_of(claim: Claim, *, language: str, project: str) -> Rule:
    """The claim as a rule said in `project`."""
    return Rule(kind=claim.kind, polarity=claim.polarity, modality=claim.modality,
                action=claim.text, alternative=claim.instead,
                replaces=claim.alternative if claim.polarity == "positive" else "",
                scope=applies_to(claim.sentence, lexicon(language), project=project,
                                 kind=claim.kind),
                qualifier=claim.scope)


def rules_read(*, text: str, language: str = "", project: str = "p") -> list[Rule]:
    """Every rule the text states, read in `language` (or the one it reads as), as if said
    in `project` (only whether there is one matters)."""
    if language:
        claims = claims_in(text, language)
    else:
        claims, language = claims_and_language(text)
    return [rule_of(claim, language=language, project=project) for claim in claims]


def rule_read(*, text: str, language: str = "") -> Rule | None:
    """The first rule a text states, or None: "N'utilise jamais requests, utilise httpx" is
    Rule(negative, action "use requests", alternative "use httpx", scope project), named
    "never use requests"."""
    found = rules_read(text=text, language=language)
    return found[0] if found else None


def _observe(event: Event, claim: Claim, language: str, *, said: str, source: str = "prompt",
             key: str = "") -> ObservationDraft:
    agent = base_agent(event)
    instruction = claim.kind == "instruction"
    sentiment, score = sentiment_of(claim.sentence, language)
    project = project_of(event).name
    rule = rule_of(claim, language=language, project=project)
    body = {"claim": claim.text, "subject": claim.subject, "polarity": claim.polarity,
            "modality": claim.modality, "verb": claim.verb, "text": excerpt(claim.sentence, 300),
            "rule": rule.name,
            "said": excerpt(said_words(said, claim.whole or claim.sentence), 300),
            "language": language, "source": source, "project": project,
            "applies_to": rule.scope}
    if claim.alternative:
        body["alternative"] = claim.alternative
    if claim.instead:
        body["instead"] = claim.instead
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
        key=f"{event['id']}:{key}{claim.kind}:{claim.polarity}:{claim.text}",
    )


def _from_rejections(event: Event, calls: dict[str, Any]) -> list[ObservationDraft]:
    drafts = []
    for rejection in rejections(event, calls):
        claims, language = claims_and_language(rejection.reason, corrective=True)
        for claim in claims:
            for rule in _instead_of(claim, rejection.replaced):
                drafts.append(_observe(event, rule, language, said=rejection.reason,
                                       source="rejection", key=f"{rejection.tool_use_id}:"))
    return drafts


def _instead_of(claim: Claim, replaced: str) -> list[Claim]:
    """A bare "use pnpm" rejecting `npm install` is "use pnpm instead of npm"."""
    if claim.modality != "instead" or claim.alternative or not replaced \
            or replaced.casefold() in claim.subject.casefold().split():
        return [claim]
    claim = dataclasses.replace(claim, alternative=replaced)
    return [claim, *_replacing(claim)]


def analyze(events: Sequence[Event]) -> list[ObservationDraft]:
    drafts: list[ObservationDraft] = []
    after_refusal = corrective_prompts(events)
    calls: dict[str, Any] = dict(tool_calls(events))
    for event in observed(events):
        subtype = event.get("subtype")
        if subtype == "user.tool_result":
            drafts.extend(_from_rejections(event, calls))
        elif subtype == "user.interrupt" and (said := said_with_interrupt(event)):
            claims, language = claims_and_language(said, corrective=True)
            drafts.extend(_observe(event, claim, language, said=said, source="correction")
                          for claim in claims)
        elif is_operator_prompt(event):
            corrective = is_corrective(event, after_refusal)
            text = message_text(event)
            claims, language = claims_and_language(text, corrective=corrective)
            source = "correction" if corrective else "prompt"
            drafts.extend(_observe(event, claim, language, said=text, source=source)
                          for claim in claims)
    return drafts


ANALYZER = Analyzer(name="instructions", sources=("claude-code",), analyze=analyze)
