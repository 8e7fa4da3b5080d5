"""Corrections and interrupts: the operator saying no ("no, that's wrong", "non, c'est
faux"), undoing ("revert that", "annule"), stopping, reproaching, reporting that it still
fails, interrupting ("[Request interrupted by user]") or refusing a tool call ->
`correction` on `agent:<agent>:failure-mode`."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from insight.analyzers import namespaces
from insight.analyzers.base import Analyzer, Event, ObservationDraft
from insight.analyzers.claude_messages import INTERRUPT, REJECTED, REJECTION_REASON
from insight.analyzers.events import (
    actor,
    agent_of,
    base_agent,
    block_text,
    blocks,
    correlation,
    draft,
    is_operator_prompt,
    message_text,
    observed,
)
from insight.analyzers.sentiment import sentiment_of
from insight.analyzers.text import (
    CACHED_TEXTS,
    excerpt,
    language_of,
    reading_order,
    sentences,
)
from insight.lexicons import lexicon

# The more specific kinds are tried first: "no, revert it" is an undo.
KINDS = ("undo", "stop", "reproach", "still_failing", "negation")
# A refusal or an interrupt is a correction even when its words are neutral.
SILENT_CORRECTION = ("negative", -0.3)


@lru_cache(maxsize=CACHED_TEXTS)
def correction_kind(text: str) -> tuple[str, str] | None:
    """(kind, language) of a prompt that corrects the agent, from its first sentence.
    (Cached: the instructions ask it of the prompts the corrections read.)"""
    first = next(iter(sentences(text)), "")
    for language in reading_order(text):
        patterns = lexicon(language).corrections
        for kind in KINDS:
            if any(p.search(first) for p in patterns[kind]):
                return kind, language
    return None


def _sentiment(text: str, language: str) -> tuple[str, float]:
    label, score = sentiment_of(text, language) if text else ("neutral", 0.0)
    return (label, score) if label in {"negative", "critical"} else SILENT_CORRECTION


def _draft(event: Event, kind: str, text: str, language: str, **extra: str) -> ObservationDraft:
    agent = base_agent(event)
    sentiment, score = _sentiment(text, language)
    body = {"kind": kind, "text": excerpt(text, 300), "language": language,
            "agent": agent_of(event), "corrects": correlation(event)["parent"], **extra}
    return draft(
        event,
        category="correction",
        target_namespace=namespaces.correction(agent),
        topic=f"{kind}: {excerpt(text, 100)}" if text else kind,
        actors=(actor("operator", "corrector"), actor(agent, "corrected")),
        sentiment=sentiment,
        sentiment_score=score,
        payload=body,
        key=f"{event['id']}:{kind}",
    )


def _from_prompt(event: Event) -> ObservationDraft | None:
    text = message_text(event)
    if INTERRUPT.match(text):
        return _draft(event, "interrupt", "", "en", during="tool_use" if "tool use" in text else "")
    if not is_operator_prompt(event):
        return None
    found = correction_kind(text)
    return _draft(event, found[0], text, found[1]) if found else None


def _from_refusals(event: Event) -> list[ObservationDraft]:
    drafts = []
    for block in blocks(event, "tool_result"):
        text = block_text(block.get("content"))
        if REJECTED.search(text):
            reason = REJECTION_REASON.search(text)
            said = reason.group("reason").strip() if reason else ""
            drafts.append(_draft(event, "rejection", said, language_of(said) if said else "en",
                                 tool_use_id=str(block.get("tool_use_id") or "")))
    return drafts


def analyze(events: Sequence[Event]) -> list[ObservationDraft]:
    drafts: list[ObservationDraft] = []
    for event in observed(events):
        subtype = event.get("subtype")
        if subtype in {"user.prompt", "user.interrupt"} and (found := _from_prompt(event)):
            drafts.append(found)
        elif subtype == "user.tool_result":
            drafts.extend(_from_refusals(event))
    return drafts


ANALYZER = Analyzer(name="corrections", sources=("claude-code",), analyze=analyze)
