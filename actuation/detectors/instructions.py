"""A recurring operator instruction (`agent:*:instruction`, said in at least N sessions,
one claim without a contradiction pending) -> a `memory_entry`: a line in the project's
memory file (CLAUDE.md by default) stating the rule, the operator's words quoted. The
sessions count only where what the operator said reads, again, as that instruction
(`rules.rule_in`: a sentence that describes a design is no instruction)."""

from __future__ import annotations

from datetime import datetime

from actuation.detectors.base import Detector, Draft, Item, Quote, memory_file
from actuation.detectors.rules import NEGATIVE, rule_in, rule_line
from actuation.formats.claude_md import section_add_line
from actuation.formats.quoting import quote
from actuation.selectors.graph import Graph, Occurrence, Pattern
from insight.analyzers.rules import Rule
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


def _said_as(claim: str, polarity: int, occ: Occurrence) -> Rule | None:
    """The rule the operator's words state, when it is this claim with this polarity."""
    text = str(occ.payload.get("text") or "")
    corrective = str(occ.payload.get("source") or "prompt") != "prompt"
    rule = rule_in(text, corrective=corrective) if text else None
    if (rule is None or claim.casefold() not in {rule.action.casefold(), rule.name.casefold()}
            or (rule.polarity == NEGATIVE) != (polarity < 0)):
        return None
    return rule


def _draft(graph: Graph, pattern: Pattern, config: DecayConfig) -> Draft | None:
    cfg = config.actuation.memory_entry
    if len(pattern.sessions) < cfg.min_sessions or (found := _claim(pattern.entity.id)) is None:
        return None
    claim, polarity = found
    said = [(occ, rule) for occ in graph.distinct(pattern.repository, pattern.occurrences)
            if (rule := _said_as(claim, polarity, occ)) is not None]
    sessions = {o.session for o, _ in said if o.session}
    if len(sessions) < cfg.min_sessions:
        return None
    rule = said[-1][1]
    if rule.name in graph.settled(pattern.repository, NAME):
        return None
    path = memory_file(pattern.repository, config)
    before = graph.file(pattern.repository, path)
    line = rule_line(rule)
    edit = section_add_line(before, section=cfg.section, line=line,
                            max_lines=config.actuation.claude_md.max_lines)
    if edit is None:
        return None
    quotes = [Quote(text=quote(str(o.payload.get("text") or "")), by="the operator",
                    event=o.events[0] if o.events else "") for o, _ in said[-3:]]
    rationale = (
        f"The operator gave the same instruction, {quote(rule.name, limit=120)}, in "
        f"{len(sessions)} sessions of {pattern.repository.name} ({pattern.entity.key}, "
        f"strength {pattern.entity.strength:.2f}); what they said is quoted in the evidence. "
        f"Writing it in {path} saves them saying it again."
    )
    occurrences = [o for o, _ in said]
    return Draft(
        detector=NAME, diff_type="memory_entry", repository=pattern.repository, file_path=path,
        pattern_key=f"instruction:{pattern.entity.id}", short_name=f"instruction-{rule.name}",
        title=f"Standing instruction: {rule.name}"[:300],
        rationale=rationale, before=before, after=edit.after, grounding=[pattern.entity],
        occurrences=occurrences, quotes=quotes, section=cfg.section,
        items=[Item(key=rule.name, line=line, evidence={
            "sessions": len(sessions),
            "last_seen": max(o.at for o in occurrences).isoformat(),
            "session_ids": sorted(sessions)[-20:]})],
        warnings=[f"{path} would be {edit.lines} lines"] if edit.over_limit else [],
        recurrence={"category": "instruction", "entity": pattern.entity.key},
        admitted_by=(f"instructions: one standing claim, and the operator's words read again "
                     f"as that instruction ({rule.polarity}) in {len(sessions)} >= "
                     f"{cfg.min_sessions} distinct sessions (one imported twice counts once)"),
    )


def detect(graph: Graph, now: datetime, config: DecayConfig) -> list[Draft]:
    found = graph.patterns(namespace="agent:*:instruction", category="instruction",
                           min_sessions=config.actuation.memory_entry.min_sessions)
    return [d for p in found if (d := _draft(graph, p, config)) is not None]


DETECTOR = Detector(name=NAME, diff_type="memory_entry", detect=detect)
