"""A recurring operator instruction (`agent:*:instruction`, said in at least N sessions,
one claim without a contradiction pending) -> a `memory_entry`: a line in the project's
memory file (CLAUDE.md by default), quoting the operator."""

from __future__ import annotations

from datetime import datetime

from actuation.detectors.base import Detector, Draft, Quote, memory_file
from actuation.formats.claude_md import section_add_line
from actuation.formats.quoting import quote
from actuation.selectors.graph import Graph, Pattern
from memory.config import DecayConfig
from memory.models import Fact, FactStatus

NAME = "instructions"


def _claim(entity_id: int) -> tuple[str, int] | None:
    """The entity's one standing claim and its polarity; None when it is contested, or when
    both polarities stand (the operator changed their mind: a conflict to review first)."""
    facts = list(Fact.objects.filter(entity_id=entity_id).values_list("claim", "polarity",
                                                                        "status"))
    if any(status == FactStatus.CONTESTED for _, _, status in facts):
        return None
    active = [(claim, polarity) for claim, polarity, status in facts
              if status == FactStatus.ACTIVE]
    return active[0] if len({p for _, p in active}) == 1 else None


def instruction_line(claim: str, polarity: int) -> str:
    said = quote(claim, limit=120)
    if polarity < 0:
        return f"- The operator's standing instruction, in their words: never {said}."
    return f"- The operator's standing instruction, in their words: {said}."


def _draft(graph: Graph, pattern: Pattern, config: DecayConfig) -> Draft | None:
    cfg = config.actuation.memory_entry
    sessions = pattern.sessions
    if len(sessions) < cfg.min_sessions or (found := _claim(pattern.entity.id)) is None:
        return None
    claim, polarity = found
    path = memory_file(pattern.repository, config)
    before = graph.file(pattern.repository, path)
    line = instruction_line(claim, polarity)
    edit = section_add_line(before, section=cfg.section, line=line,
                            max_lines=config.actuation.claude_md.max_lines)
    if edit is None:
        return None
    said = [str(o.payload.get("text") or "") for o in pattern.occurrences]
    quotes = [Quote(text=quote(t), by="the operator", event=o.events[0] if o.events else "")
              for t, o in list(zip(said, pattern.occurrences, strict=True))[-3:] if t]
    rationale = (
        f"The operator gave the same instruction in {len(sessions)} sessions of "
        f"{pattern.repository.name} ({pattern.entity.key}, strength "
        f"{pattern.entity.strength:.2f}); what they said is quoted in the evidence. Writing it "
        f"in {path} saves them saying it again."
    )
    return Draft(
        detector=NAME, diff_type="memory_entry", repository=pattern.repository, file_path=path,
        pattern_key=f"instruction:{pattern.entity.id}", short_name=f"instruction-{claim}",
        title=f"Standing instruction: {'never ' if polarity < 0 else ''}{claim}"[:300],
        rationale=rationale, before=before, after=edit.after, grounding=[pattern.entity],
        occurrences=pattern.occurrences, quotes=quotes,
        warnings=[f"{path} would be {edit.lines} lines"] if edit.over_limit else [],
        recurrence={"category": "instruction", "entity": pattern.entity.key},
    )


def detect(graph: Graph, now: datetime, config: DecayConfig) -> list[Draft]:
    found = graph.patterns(namespace="agent:*:instruction", category="instruction",
                           min_sessions=config.actuation.memory_entry.min_sessions)
    return [d for p in found if (d := _draft(graph, p, config)) is not None]


DETECTOR = Detector(name=NAME, diff_type="memory_entry", detect=detect)
