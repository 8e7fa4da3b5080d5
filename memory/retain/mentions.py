"""What a free-text memory names, found deterministically, in English and French (no ORM, no
LLM): dates and times, quoted names, known names of a lexicon (places, organisations, tools,
libraries), and capitalised names with the cues around them ("avec Anya", "the Cortex demo",
"à Paris", "Acme Inc"). Each mention says what it probably is (`kind`); a name of no known
kind is `name`, which the Retain Job looks for by alias among the kinds it may be
(docs/memories.md). The words come from the caller (insight's lexicons)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import cached_property

from memory.retain.text import normalize, polarity

UNKNOWN = "name"
MAX_NAME_WORDS = 5
MAX_QUOTED_CHARS = 60
MAX_CLAIM_CHARS = 500

_CAPITALISED = r"[A-ZÀ-ÖØ-Þ][\w'’.-]*\w|[A-ZÀ-ÖØ-Þ]"
_JOINERS = r"(?:de|du|des|van|von|der|da|di|del|le|la|of|&)"
_NAME = re.compile(rf"(?<![\w'’])(?:{_CAPITALISED})(?:\s+(?:{_JOINERS}\s+)?(?:{_CAPITALISED}))*")
_QUOTED = re.compile(r"[\"“”«»]\s*([^\"“”«»\n]{1,60}?)\s*[\"“”«»]|`([^`\n]{1,60})`")
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)")
_WORD = re.compile(r"[\w'’-]+")
_POSSESSIVE = re.compile(r"['’]s$")
# A contraction or an elision is never a name: "I've", "Don't", "J'ai", "C'est" (but
# "O'Brien", "D'Artagnan" are).
_CONTRACTION = re.compile(r"^\w['’][a-zà-ÿ]|['’](?:ve|m|ll|d|re|t)$")
# "Dr." or "M." do not end a sentence.
_ABBREVIATION = re.compile(r"\b(Dr|Mr|Mrs|Ms|Prof|St|Mme|Mlle|M|Me|Jr|Sr|Inc|Ltd|Corp|etc|vs)\.")
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2}))?\b")
_TIME = re.compile(r"\b(?:at|à|vers|a)?\s*(\d{1,2})(?::(\d{2})|h(\d{2})?)\s*(am|pm)?(?!\w)"
                   r"|\b(\d{1,2})\s*(am|pm)\b", re.IGNORECASE)


@dataclass(frozen=True)
class MentionLexicon:
    """Normalized words (casefold, accents off) the extraction recognises."""

    places: frozenset[str] = frozenset()
    organizations: frozenset[str] = frozenset()
    tools: frozenset[str] = frozenset()
    libraries: frozenset[str] = frozenset()
    org_suffixes: frozenset[str] = frozenset()
    titles: frozenset[str] = frozenset()
    person_cues: frozenset[str] = frozenset()  # the word before a person's name
    place_cues: frozenset[str] = frozenset()  # the word before a place
    # A place cue that as often comes before a person ("à Paris", "à Anya Petrova", "to"):
    # a place before a one-word name, a person before a longer one (a first and last name).
    weak_place_cues: frozenset[str] = frozenset()
    org_cues: frozenset[str] = frozenset()  # the word before an organisation
    project_words: frozenset[str] = frozenset()  # "demo", "projet": a project's name beside
    common_words: frozenset[str] = frozenset()  # capitalised at a sentence start: not a name
    # Tools and libraries that are everyday words in lower case ("go hiking", "make sure",
    # "click the button"): named only capitalised or quoted.
    everyday_words: frozenset[str] = frozenset()
    months: Mapping[str, int] = field(default_factory=dict)
    relative_days: Mapping[str, int] = field(default_factory=dict)  # "hier": -1
    # What makes a sentence about its subject a claim ("is", "uses", "préfère"), and the
    # words that may stand between them ("does not", "n'"); articles before the subject.
    claim_verbs: frozenset[str] = frozenset()
    claim_negations: frozenset[str] = frozenset()
    articles: frozenset[str] = frozenset()

    @cached_property
    def month_pattern(self) -> re.Pattern[str] | None:
        return _month_pattern(self)


@dataclass(frozen=True)
class Mention:
    kind: str
    name: str
    start: int
    value: str = ""  # dates: ISO 8601


@dataclass(frozen=True)
class MentionClaim:
    """A sentence whose subject is a mention: a claim on that entity."""

    mention: int  # index in the mentions
    claim: str
    polarity: int


# -- dates and times -----------------------------------------------------------------------


def _month_pattern(lexicon: MentionLexicon) -> re.Pattern[str] | None:
    if not lexicon.months:
        return None
    names = "|".join(re.escape(m) for m in sorted(lexicon.months, key=len, reverse=True))
    day = r"(\d{1,2})(?:st|nd|rd|th|er)?"
    year = r"(?:,?\s+(\d{4}))?"
    return re.compile(rf"\b(?:{day}\s+(?:of\s+)?({names})\.?{year}|({names})\.?\s+{day}{year})\b",
                      re.IGNORECASE)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _dates(text: str, lexicon: MentionLexicon, reference: datetime) -> list[Mention]:
    found: list[Mention] = []
    for match in _ISO.finditer(text):
        day = _safe_date(int(match[1]), int(match[2]), int(match[3]))
        if day is not None:
            found.append(Mention("date", day.isoformat(), match.start(), day.isoformat()))
    pattern = lexicon.month_pattern
    for match in pattern.finditer(text) if pattern else ():
        day_text, month_text, year_text = ((match[1], match[2], match[3]) if match[1]
                                           else (match[5], match[4], match[6]))
        month = lexicon.months[normalize(month_text)]
        day = _safe_date(int(year_text) if year_text else reference.year, month, int(day_text))
        if day is not None:
            found.append(Mention("date", day.isoformat(), match.start(), day.isoformat()))
    for word in _WORD.finditer(text):
        offset = lexicon.relative_days.get(normalize(word[0]))
        if offset is not None:
            day = (reference + timedelta(days=offset)).date()
            found.append(Mention("date", day.isoformat(), word.start(), day.isoformat()))
    return found


def _clock_time(match: re.Match[str]) -> str | None:
    if match[5] is not None:
        hour, minute, half = int(match[5]), 0, match[6].casefold()
    else:
        hour, minute = int(match[1]), int(match[2] or match[3] or 0)
        half = (match[4] or "").casefold()
    if half == "pm" and hour < 12:
        hour += 12
    if half == "am" and hour == 12:
        hour = 0
    return f"{hour:02d}:{minute:02d}" if hour < 24 and minute < 60 else None


def _with_times(text: str, dates: list[Mention], reference: datetime) -> list[Mention]:
    """A time of day joins the date before it (or the memory's own day): 2026-03-03T14:30."""
    out = list(dates)
    for match in _TIME.finditer(text):
        clock_text = _clock_time(match)
        if clock_text is None or _ISO.search(text, max(0, match.start() - 11), match.end()):
            continue
        before = [i for i, m in enumerate(out) if m.start <= match.start() and "T" not in m.value]
        if before:
            index = before[-1]
            day = out[index].value
            out[index] = Mention("date", day, out[index].start, f"{day}T{clock_text}")
        else:
            day = reference.date().isoformat()
            out.append(Mention("date", day, match.start(), f"{day}T{clock_text}"))
    return out


# -- names -----------------------------------------------------------------------------


def _sentences(text: str) -> list[tuple[int, str]]:
    """(start, sentence) pairs; an abbreviation's period ends none."""
    masked = _ABBREVIATION.sub(lambda m: m[1] + " ", text)
    return [(m.start(), text[m.start():m.end()]) for m in _SENTENCE.finditer(masked)]


def _sentence_starts(text: str) -> set[int]:
    starts = set()
    for start, sentence in _sentences(text):
        stripped = len(sentence) - len(sentence.lstrip(" \t-*>#•"))
        starts.add(start + stripped)
    return starts


_BEFORE = re.compile(r"([\w'’-]+)\s+$")
_TITLE_BEFORE = re.compile(r"([\w'’-]+)\.?\s+$")
_AFTER = re.compile(r"^\s+([\w'’-]+)")


def _previous_word(text: str, start: int) -> str:
    """The word just before, with nothing but spaces between ("; X" has none)."""
    match = _BEFORE.search(text[max(0, start - 40):start])
    return normalize(match[1]) if match else ""


def _next_word(text: str, end: int) -> str:
    match = _AFTER.match(text[end:end + 40])
    return normalize(match[1]) if match else ""


def _known_kind(normalized: str, lexicon: MentionLexicon) -> str | None:
    for kind, words in (("place", lexicon.places), ("organization", lexicon.organizations),
                        ("library", lexicon.libraries), ("tool", lexicon.tools)):
        if normalized in words:
            return kind
    return None


def _cued_kind(name: str, text: str, start: int, end: int, lexicon: MentionLexicon) -> str:
    normalized = normalize(name)
    known = _known_kind(normalized, lexicon)
    if known:
        return known
    words = normalized.split()
    before, after = _previous_word(text, start), _next_word(text, end)
    if words[-1] in lexicon.org_suffixes:
        return "organization"
    title = _TITLE_BEFORE.search(text[max(0, start - 40):start])
    if title and normalize(title[1]) in lexicon.titles:
        return "person"
    if after in lexicon.project_words or before in lexicon.project_words:
        return "project"
    if before in lexicon.weak_place_cues:
        return "place" if len(words) == 1 else "person"
    for kind, cues in (("person", lexicon.person_cues), ("organization", lexicon.org_cues),
                       ("place", lexicon.place_cues)):
        if before in cues:
            return kind
    return UNKNOWN


def _trim(name: str, lexicon: MentionLexicon, at_start: bool) -> tuple[str, int]:
    """The name without leading words that are not part of it ("The", a title, a month);
    and how many characters were cut from its start."""
    words = name.split()
    cut = 0
    titled = [i for i, w in enumerate(words[:-1]) if normalize(w) in lexicon.titles]
    if titled:  # "Called Dr. Jean Dupont": the name is what follows the title
        cut = sum(len(w) + 1 for w in words[:titled[0] + 1])
        words = words[titled[0] + 1:]
        at_start = False
    while words and (normalize(words[0]) in lexicon.months
                     or normalize(words[0]) in lexicon.titles
                     or _CONTRACTION.search(words[0])
                     or (at_start and cut == 0 and normalize(words[0]) in lexicon.common_words)):
        cut += len(words[0]) + 1
        words.pop(0)
        at_start = False
    while words and (normalize(words[-1]) in lexicon.months
                     or normalize(words[-1]) in ("de", "du", "des", "of", "la", "le")):
        words.pop()
    # "Anya Petrova's cat": the name is Anya Petrova's, not "Anya Petrova's".
    name = _POSSESSIVE.sub("", " ".join(words[:MAX_NAME_WORDS]))
    return name.strip(".'’-"), cut


def _names(text: str, lexicon: MentionLexicon) -> list[Mention]:
    starts = _sentence_starts(text)
    found = []
    for match in _NAME.finditer(text):
        name, cut = _trim(match[0], lexicon, match.start() in starts)
        start = match.start() + cut
        if not name or normalize(name) in lexicon.common_words or len(normalize(name)) < 2:
            continue
        found.append(Mention(_cued_kind(name, text, start, start + len(name), lexicon),
                             name, start))
    for match in _QUOTED.finditer(text):
        name = (match[1] or match[2] or "").strip()
        if name and len(name) <= MAX_QUOTED_CHARS and len(name.split()) <= MAX_NAME_WORDS:
            kind = _known_kind(normalize(name), lexicon) or (
                "tool" if match[2] else _cued_kind(name, text, match.start(), match.end(),
                                                   lexicon))
            found.append(Mention(kind, name, match.start(1) if match[1] else match.start(2)))
    return found


def _lexicon_words(text: str, lexicon: MentionLexicon) -> list[Mention]:
    """Tools and libraries named in lower case ("use pnpm", "sous postgres")."""
    found = []
    for match in _WORD.finditer(text):
        word = match[0]
        if word[:1].isupper():
            continue
        normalized = normalize(word)
        kind = _known_kind(normalized, lexicon)
        if kind in ("tool", "library") and normalized not in lexicon.everyday_words:
            found.append(Mention(kind, word, match.start()))
    return found


def _unique(mentions: Iterable[Mention]) -> list[Mention]:
    """One mention per (kind, normalized name); the most specific kind wins over `name`."""
    best: dict[str, Mention] = {}
    for mention in sorted(mentions, key=lambda m: (m.start, m.kind == UNKNOWN)):
        key = mention.value if mention.kind == "date" else normalize(mention.name)
        if not key:
            continue
        held = best.get(key)
        if held is None or (held.kind == UNKNOWN and mention.kind != UNKNOWN):
            best[key] = Mention(mention.kind, held.name if held else mention.name,
                                held.start if held else mention.start, mention.value)
        elif mention.kind == "date" and "T" in mention.value and "T" not in held.value:
            best[key] = mention
    return sorted(best.values(), key=lambda m: (m.start, m.name))


def mentions_extract(text: str, *, lexicon: MentionLexicon, reference: datetime,
                     ) -> list[Mention]:
    """Every entity the text names, in order of appearance; dates resolved against
    `reference` (the memory's own time: "March 3" is in its year, "hier" the day before)."""
    dates = _with_times(text, _dates(text, lexicon, reference), reference)
    names = [m for m in _names(text, lexicon)
             if not any(d.start <= m.start < d.start + 20 and normalize(m.name) in
                        lexicon.months for d in dates)]
    return _unique([*dates, *names, *_lexicon_words(text, lexicon)])


# -- claims ----------------------------------------------------------------------------


def _states(rest: list[str], lexicon: MentionLexicon) -> bool:
    """Whether the words after the subject start with a claim verb ("is", "n'est pas")."""
    for word in rest[:4]:
        if word in lexicon.claim_verbs:
            return True
        if word not in lexicon.claim_negations:
            return False
    return False


def claims_extract(text: str, mentions: list[Mention], *, lexicon: MentionLexicon
                   ) -> list[MentionClaim]:
    """A sentence whose subject is a named entity (after an article) and whose verb states
    something of it ("is", "uses", "préfère"; not "moved") is a claim on it, with its
    polarity ("Postgres is not reliable" on Postgres: -1)."""
    claims = []
    for _, sentence in _sentences(text):
        body = sentence.strip(" \t-*>#•")
        words = normalize(body).split()
        while words and words[0] in lexicon.articles:
            words.pop(0)
        for index, mention in enumerate(mentions):
            name = normalize(mention.name).split()
            if mention.kind == "date" or not name or words[:len(name)] != name:
                continue
            if _states(words[len(name):], lexicon):
                claim = body.rstrip(".!? ")[:MAX_CLAIM_CHARS]
                claims.append(MentionClaim(index, claim, polarity(claim)))
            break
    return claims
