"""Speech acts: every interaction message typed by its illocutionary act (Austin/Searle),
with its sentiment and language, tallied per session, speaker and counterpart ->
`interaction`, so that one can ask "mostly directive with agent X".

Each sentence gets its acts from the lexicon (a sentence may be both expressive and
directive: "Great, now add tests."); the message takes the act most of its sentences
perform, ties going to the more binding act (PRIORITY).

The unit of the interaction profile is the pair in a session: the analyzer drafts one unit
per message, all of a pair under one key, and the analysis adds them up into one observation
per pair (`tally_add`), counting each message once however often it is read
(insight/services/analysis.py, memory/services/observation_tallies.py). The observation's
own time, topic and sentiment are its first message's: fixed when it is created, so the
Retain Job reads the same whether a session came whole (a replay) or in parts."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from insight.analyzers import namespaces
from insight.analyzers.base import Analyzer, Event, ObservationDraft
from insight.analyzers.events import (
    actor,
    base_agent,
    correlation,
    draft,
    is_operator_prompt,
    is_sidechain,
    message_text,
    observed,
    payload,
)
from insight.analyzers.sentiment import sentiment_of
from insight.analyzers.text import excerpt, language_of, sentences
from insight.lexicons import Lexicon, lexicon

ACTS = ("assertive", "directive", "commissive", "expressive", "declarative")
PRIORITY = ("declarative", "directive", "commissive", "expressive", "assertive")
_NO_WORDS = re.compile(r"^[\W\d_]+$")


def sentence_acts(sentence: str, lex: Lexicon) -> set[str]:
    acts = {act for act in ("declarative", "expressive") if lex.acts[act].search(sentence)}
    core = lex.fillers.sub("", sentence).strip()
    if core.endswith("?") or lex.acts["directive"].search(core):
        acts.add("directive")
    elif core and lex.acts["commissive"].search(core):
        acts.add("commissive")
    if not acts:
        acts.add("expressive" if _NO_WORDS.match(sentence) else "assertive")
    return acts


def classify(text: str, language: str) -> tuple[str, dict[str, int]]:
    """(the message's act, how many sentences perform each act)."""
    lex = lexicon(language)
    counts: Counter[str] = Counter()
    for sentence in sentences(text):
        counts.update(sentence_acts(sentence, lex))
    if not counts:
        return "assertive", {}
    best = max(PRIORITY, key=counts.__getitem__)  # the first of equal counts: the more binding
    return best, dict(counts)


def parties(event: Event) -> tuple[str, str] | None:
    """(speaker, counterpart) of an interaction message, None if it is not one. Inside a
    subagent run the agent speaks with itself (the run is an episode of it, in `subagent`)."""
    subtype = event.get("subtype")
    if subtype == "user.prompt":
        agent = base_agent(event)
        if is_operator_prompt(event):
            return "operator", agent
        if is_sidechain(event):  # a subagent's task, written by the agent that spawned it
            return agent, agent
        return None
    if subtype == "assistant.text" and not payload(event).get("isApiErrorMessage"):
        agent = base_agent(event)
        return agent, agent if is_sidechain(event) else "operator"
    return None


def pair_key(session: str, speaker: str, counterpart: str) -> str:
    """What makes messages one interaction observation: their session and parties."""
    return "\x1f".join(("pair", session, speaker, counterpart))


def _observe(event: Event, speaker: str, counterpart: str) -> ObservationDraft | None:
    """The unit one message adds to its pair's tally."""
    text = message_text(event)
    if not text.strip():
        return None
    language = language_of(text)
    act, _ = classify(text, language)
    sentiment, score = sentiment_of(text, language)
    session = correlation(event)["session"]
    return draft(
        event,
        category="interaction",
        target_namespace=namespaces.relationship(base_agent(event)),
        topic=excerpt(text),
        actors=(actor(speaker, "speaker"), actor(counterpart, "counterpart")),
        sentiment=sentiment,
        sentiment_score=score,
        correlation={"session": session, "thread": "", "parent": ""},
        key=pair_key(session, speaker, counterpart),
        payload={"act": act, "speaker": speaker, "counterpart": counterpart,
                 "language": language, "messages": 1, "chars": len(text),
                 "act_counts": {act: 1}, "sentiments": {sentiment: 1},
                 "languages": {language: 1}},
    )


COUNTS = ("act_counts", "sentiments", "languages")


def _most(counts: Mapping[str, int], order: Sequence[str]) -> str:
    """The most frequent key; ties to the earlier in `order`, then alphabetical."""
    rank = {name: index for index, name in enumerate(order)}
    return min(counts, key=lambda name: (-counts[name], rank.get(name, len(rank)), name))


def tally_add(total: Mapping[str, Any], units: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A pair's tally with more messages' units counted (`total` is left as it is): the
    counts added, the act and language the most frequent so far."""
    out = dict(total)
    for name in ("messages", "chars"):
        out[name] = int(total.get(name) or 0) + sum(int(unit.get(name) or 0) for unit in units)
    for name in COUNTS:
        counts = Counter(total.get(name) or {})
        for unit in units:
            counts.update(unit.get(name) or {})
        out[name] = dict(sorted(counts.items()))
    out["act"] = _most(out["act_counts"], PRIORITY)
    out["language"] = _most(out["languages"], ())
    return out


def analyze(events: Sequence[Event]) -> list[ObservationDraft]:
    drafts = []
    for event in observed(events):
        who = parties(event)
        if who and (found := _observe(event, *who)):
            drafts.append(found)
    return drafts


ANALYZER = Analyzer(name="speech_acts", sources=("claude-code",), analyze=analyze)
