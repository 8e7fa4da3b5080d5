"""`tool_error` (agent:*:rc): the root cause is the entity, one per normalized error
signature (one root cause across sessions and tools), named by its tool and message. Its
slug reads as the error does and ends in a short digest of the signature
(`agent:claude-code:rc:file-not-read-yet-590540`)."""

from __future__ import annotations

import re

from insight.analyzers.signatures import MIN_WORDS_WITHOUT_TOOL
from insight.handlers.common import actor_specs
from memory.retain.extraction import (
    EntitySpec,
    Extraction,
    ObservationView,
    RelationSpec,
    slug_of,
)
from memory.retain.registry import handler_register

SLUG_WORDS = 6
DIGEST_CHARS = 6
_PLACEHOLDER = re.compile(r"<[a-z]+>")
_FIRST_PART = re.compile(r"\.\s|\s\|\s|\n")
_WORD = re.compile(r"[a-z][a-z0-9_]*(?:'[a-z]+)?")
_WORDS = re.compile(r"[a-z]{2,}")  # as signatures.py counts them
_FILLERS = frozenset({"a", "an", "the", "is", "are", "was", "were", "be", "been", "has",
                      "have", "had", "it", "to", "of", "in", "on", "at", "for", "this", "that"})


def readable_slug(tool: str, normalized: str, signature: str) -> str:
    """The first words of the message's first sentence, then the digest; the tool first
    when the signature holds it (a terse message: signatures.py)."""
    first = _FIRST_PART.split(_PLACEHOLDER.sub(" ", normalized.casefold()), maxsplit=1)[0]
    words = [w for w in _WORD.findall(first) if w not in _FILLERS][:SLUG_WORDS]
    if len(_WORDS.findall(normalized)) < MIN_WORDS_WITHOUT_TOOL:
        words.insert(0, tool)
    head = slug_of(" ".join(words))[:80].rstrip("-.") or "error"
    return f"{head}-{signature[:DIGEST_CHARS]}" if signature else head


@handler_register("tool_error", "agent:*:rc")
def tool_error(view: ObservationView) -> Extraction:
    tool = view.text("tool", "unknown")
    normalized = view.text("normalized") or view.topic
    name = f"{tool}: {normalized}"[:300]
    slug = readable_slug(tool, normalized, view.text("signature"))
    actors = actor_specs(view, default_namespace="world:artifact")
    cause = EntitySpec(ref="rc", namespace=view.target_namespace, name=name,
                       key=f"{view.target_namespace}:{slug}", principal=True,
                       role="root_cause")
    relations = []
    if "tool" in actors:
        relations.append(RelationSpec("rc", "tool", "relates_to"))
        if "agent" in actors:
            relations.append(RelationSpec("agent", "tool", "uses"))
    return Extraction(entities=(cause, *actors.values()), relations=tuple(relations))
