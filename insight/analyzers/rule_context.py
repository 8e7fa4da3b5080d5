"""Where the operator states a rule in words, beyond "always" and "never" in a prompt:

- the reason given for a rejected tool use ("The user doesn't want to proceed with this
  tool use... the following reason for the rejection: use pnpm"): a rule that replaces the
  refused call (`npm install` -> "use pnpm" instead of npm);
- the prompt that follows an interrupt or a rejection (or shares the interrupt's line), or
  that starts by correcting the agent ("no, use httpx"): there a bare "use X" is a rule too.

And where a rule holds: in the project it was said in, unless it says otherwise ("in all
projects", "partout"); "in this project", "ici" binds it to that project alone."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from insight.analyzers.base import Event
from insight.analyzers.claude_messages import INTERRUPT, REJECTED, REJECTION_REASON
from insight.analyzers.commands import segments
from insight.analyzers.corrections import correction_kind
from insight.analyzers.events import (
    block_text,
    blocks,
    correlation,
    is_sidechain,
    message_text,
    tool_input,
)
from insight.lexicons import Lexicon

_INTERRUPT_MARK = re.compile(r"^\s*\[Request interrupted by user[^\]]*\]")


@dataclass(frozen=True)
class Rejection:
    reason: str
    tool_use_id: str
    # What the refused call ran (`npm` for `npm install`): what the rule replaces.
    replaced: str


def _refuses(event: Event) -> bool:
    if event.get("subtype") == "user.interrupt" or INTERRUPT.match(message_text(event)):
        return True
    return any(REJECTED.search(block_text(b.get("content"))) for b in blocks(event, "tool_result"))


def corrective_prompts(events: Sequence[Event]) -> set[str]:
    """Ids of the prompts whose parent (in this batch) is an interrupt or a rejection."""
    prompts = [(e, correlation(e)["parent"]) for e in events if e.get("subtype") == "user.prompt"]
    parents = {parent for _, parent in prompts}  # only they are read (each event's text is not)
    refusals = {source_id for e in events
                if (source_id := str(e.get("source_id"))) in parents and _refuses(e)}
    return {str(e["id"]) for e, parent in prompts if parent in refusals}


def said_with_interrupt(event: Event) -> str:
    """What the operator typed in the same line as an interrupt ("[Request interrupted by
    user]" then "no, use pnpm"), in a main session."""
    if is_sidechain(event):
        return ""
    return _INTERRUPT_MARK.sub("", message_text(event), count=1).strip()


def is_corrective(event: Event, after_refusal: set[str]) -> bool:
    return str(event["id"]) in after_refusal or correction_kind(message_text(event)) is not None


def _replaced(call: Mapping[str, Any] | None) -> str:
    if not call or call.get("name") != "Bash":
        return ""
    parts = segments(str(tool_input(call).get("command") or ""))
    return parts[0][0].rsplit("/", 1)[-1] if parts else ""


def rejections(event: Event, calls: Mapping[str, Mapping[str, Any]]) -> list[Rejection]:
    """The rejected tool uses of a tool result that say why."""
    found = []
    for block in blocks(event, "tool_result"):
        text = block_text(block.get("content"))
        reason = REJECTION_REASON.search(text) if REJECTED.search(text) else None
        if reason and reason.group("reason").strip():
            use_id = str(block.get("tool_use_id") or "")
            found.append(Rejection(reason.group("reason").strip(), use_id,
                                   _replaced(calls.get(use_id))))
    return found


GLOBAL, PROJECT, THIS_PROJECT = "global", "project", "this_project"


def applies_to(sentence: str, lex: Lexicon, *, project: str, kind: str) -> str:
    """Where a rule holds: `global` (said for every project, or a preference), `project`
    (an instruction holds in its project) or `this_project` (the sentence says so: "in this
    project", "ici": the session's project and only it, even when said again elsewhere)."""
    if any(word in sentence for word in lex.global_words) or not project:
        return GLOBAL
    if lex.here_words.search(sentence):
        return THIS_PROJECT
    return PROJECT if kind == "instruction" else GLOBAL
