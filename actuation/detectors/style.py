"""A persistent interaction style with a contact, from the speech-act profile (the acts of
the messages the other party sends the agent, `agent:*:relationship`) -> a `memory_entry`
that surfaces it: "mostly directive, often expressive"."""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime

from actuation.detectors.base import Detector, Draft, memory_file
from actuation.formats.claude_md import section_add_line
from actuation.formats.quoting import quote
from actuation.selectors.graph import Graph, Pattern
from memory.config import DecayConfig

NAME = "interaction_style"
MEANING = {
    "directive": "requests and instructions",
    "expressive": "reactions and feelings",
    "assertive": "statements of fact",
    "commissive": "commitments",
    "declarative": "declarations that settle something",
}
_NAME = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")


def _who(name: str) -> str:
    return name if _NAME.match(name) else quote(name, limit=40)


def style_line(other: str, agent: str, first: str, second: str) -> str:
    return (f"- Interaction style: {_who(other)}'s messages to {_who(agent)} are mostly "
            f"{first} ({MEANING[first]}), often {second} ({MEANING[second]}).")


def _draft(graph: Graph, pattern: Pattern, config: DecayConfig) -> Draft | None:
    cfg = config.actuation.style
    other = pattern.entity.name
    sent = [o for o in pattern.occurrences if o.payload.get("speaker") == other
            and o.payload.get("act") in MEANING]
    if len(sent) < cfg.min_messages:
        return None
    acts = Counter(str(o.payload["act"]) for o in sent).most_common(2)
    if len(acts) < 2:
        return None
    (first, n1), (second, n2) = acts
    if n1 / len(sent) < cfg.min_share or n2 / len(sent) < cfg.second_share:
        return None
    agent = str(sent[-1].payload.get("counterpart") or "the agent")
    path = memory_file(pattern.repository, config)
    before = graph.file(pattern.repository, path)
    edit = section_add_line(before, section=cfg.section,
                            line=style_line(other, agent, first, second),
                            max_lines=config.actuation.claude_md.max_lines)
    if edit is None:
        return None
    rationale = (
        f"Of the {len(sent)} messages {_who(other)} sent {_who(agent)} in "
        f"{len(pattern.sessions)} sessions of {pattern.repository.name}, {n1} were {first} "
        f"and {n2} {second} (speech acts, from the interaction profile). A persistent style "
        "is worth stating where the next session reads it."
    )
    return Draft(
        detector=NAME, diff_type="memory_entry", repository=pattern.repository, file_path=path,
        pattern_key=f"style:{pattern.entity.id}", short_name=f"style-{other}-{first}",
        title=f"Interaction style with {other}: {first}, then {second}", rationale=rationale,
        before=before, after=edit.after, grounding=[pattern.entity], occurrences=sent,
        warnings=[f"{path} would be {edit.lines} lines"] if edit.over_limit else [],
    )


def detect(graph: Graph, now: datetime, config: DecayConfig) -> list[Draft]:
    return [d for p in graph.patterns(namespace="agent:*:relationship", category="interaction")
            if (d := _draft(graph, p, config)) is not None]


DETECTOR = Detector(name=NAME, diff_type="memory_entry", detect=detect)
