"""A rule as the operator said it: its polarity, its action, what to do instead, where it
holds, and its name in canonical English words with the polarity in them ("never use
requests", "always use uv", "do not modify migrations"), so that a reader of the name alone
does what was asked.

`insight.analyzers.instructions.rule_read(text=..., language=...)` reads a text as a rule
with these (the instruction analyzer's own reading; actuation's proposals may reuse it: only
instructions become instructions)."""

from __future__ import annotations

from dataclasses import dataclass

from insight.analyzers.text import prose

NEGATIVE = "negative"


@dataclass(frozen=True)
class Rule:
    kind: str  # instruction | preference
    polarity: str  # positive | negative
    modality: str  # always, never, dont, avoid, instead, prefer, like, dislike...
    action: str  # canonical, without polarity: "use requests" (opposite rules share it)
    alternative: str  # what to do instead of a negative rule: "use httpx"
    replaces: str  # what a positive rule replaces: "npm" in "use pnpm instead of npm"
    scope: str  # global | project | this_project
    qualifier: str  # what the sentence narrows it to: "in the integration tests"

    @property
    def name(self) -> str:
        return rule_name(kind=self.kind, polarity=self.polarity, modality=self.modality,
                         action=self.action)


def rule_name(*, kind: str, polarity: str, modality: str, action: str) -> str:
    """The rule in words that carry its polarity. Negation and "always" are no content words
    (memory.retain.text), so "never use uv" and "always use uv" remain one claim of opposite
    polarities for conflict detection."""
    if kind == "preference":
        subject = action.removeprefix("prefer ")
        return f"does not like {subject}" if polarity == NEGATIVE else f"prefer {subject}"
    verb, _, subject = action.partition(" ")
    if polarity == NEGATIVE:
        if modality == "dont":
            return f"do not {action}"
        if modality == "avoid" and verb == "use":
            return f"avoid using {subject}"
        return f"never {action}"
    return f"always {action}" if modality == "always" else action


def said_words(text: str, sentence: str) -> str:
    """The sentence as the operator typed it (case kept): `sentence` is the lowercased one
    the patterns read, found again in the text; itself when it cannot be."""
    flat = " ".join(prose(text).split())
    folded = flat.casefold()
    start = folded.find(sentence)
    if start < 0 or len(folded) != len(flat):
        return sentence
    return flat[start:start + len(sentence)]
