"""A recurring correction that states a rule: the operator correcting the agent ("use pnpm,
not npm" as a refusal's reason, "no, never push to main") with the same rule in at least N
distinct sessions (one imported twice counts once) -> a `memory_entry` stating the
rule, their words quoted. A correction that states no rule ("no, then it's good", a name) is
never proposed (`rules.rule_in`). The failure mode the corrections mention
(`agent:*:failure-mode`) grounds it."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from actuation.detectors.base import Detector, Draft, Item, Quote, memory_file
from actuation.detectors.rules import rule_in, rule_line
from actuation.formats.claude_md import section_add_line
from actuation.formats.quoting import quote
from actuation.selectors.graph import Graph, Occurrence, Pattern
from insight.analyzers.rules import Rule
from memory.config import DecayConfig

NAME = "corrections"


def _rules(pattern: Pattern) -> dict[Rule, list[Occurrence]]:
    by_rule: dict[Rule, list[Occurrence]] = defaultdict(list)
    for occ in pattern.occurrences:
        text = str(occ.payload.get("text") or "")
        if text and (rule := rule_in(text, corrective=True)) is not None:
            by_rule[rule].append(occ)
    return by_rule


def _draft(graph: Graph, pattern: Pattern, rule: Rule, occurrences: list[Occurrence],
           config: DecayConfig) -> Draft | None:
    cfg = config.actuation.memory_entry
    occurrences = graph.distinct(pattern.repository, occurrences)
    sessions = {o.session for o in occurrences if o.session}
    if len(sessions) < cfg.min_sessions or rule.name in graph.settled(pattern.repository,
                                                                      NAME):
        return None
    text = str(occurrences[-1].payload.get("text") or "")
    path = memory_file(pattern.repository, config)
    before = graph.file(pattern.repository, path)
    line = rule_line(rule)
    edit = section_add_line(before, section=cfg.section, line=line,
                            max_lines=config.actuation.claude_md.max_lines)
    if edit is None:
        return None
    rationale = (
        f"In {len(sessions)} sessions of {pattern.repository.name} the operator corrected the "
        f"agent with the same rule, {quote(rule.name, limit=120)}; last in their words: "
        f"{quote(text, limit=160)}. Writing the rule in {path} lets the next session start "
        "from it."
    )
    return Draft(
        detector=NAME, diff_type="memory_entry", repository=pattern.repository, file_path=path,
        pattern_key=f"correction:{pattern.entity.id}:{rule.name[:200]}",
        short_name=f"correction-{rule.name}", title=f"Operator's rule: {rule.name}"[:300],
        rationale=rationale, before=before, after=edit.after, grounding=[pattern.entity],
        occurrences=occurrences, section=cfg.section,
        items=[Item(key=rule.name, line=line, evidence={
            "sessions": len(sessions), "last_seen": max(o.at for o in occurrences).isoformat(),
            "session_ids": sorted(sessions)[-20:]})],
        quotes=[Quote(text=quote(str(o.payload.get("text") or "")), by="the operator",
                      event=o.events[0] if o.events else "") for o in occurrences[-3:]],
        warnings=[f"{path} would be {edit.lines} lines"] if edit.over_limit else [],
        recurrence={"category": "correction", "entity": pattern.entity.key},
        admitted_by=(f"corrections: the operator's corrections state one rule "
                     f"({rule.polarity}, read by Cortex's rule reading) in {len(sessions)} >= "
                     f"{cfg.min_sessions} distinct sessions (one imported twice counts once)"),
    )


def detect(graph: Graph, now: datetime, config: DecayConfig) -> list[Draft]:
    drafts = []
    for pattern in graph.patterns(namespace="agent:*:failure-mode", category="correction",
                                  min_sessions=config.actuation.memory_entry.min_sessions):
        for rule, occurrences in sorted(_rules(pattern).items(), key=lambda r: r[0].name):
            if draft := _draft(graph, pattern, rule, occurrences, config):
                drafts.append(draft)
    return drafts


DETECTOR = Detector(name=NAME, diff_type="memory_entry", detect=detect)
