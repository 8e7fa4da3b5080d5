"""A recurring correction: the operator refusing tool uses with the same words ("use pnpm")
in at least N sessions -> a `memory_entry` quoting them. The failure mode the corrections
mention (`agent:*:failure-mode`) grounds it."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from actuation.detectors.base import Detector, Draft, Quote, memory_file
from actuation.formats.claude_md import section_add_line
from actuation.formats.quoting import normalized, quote
from actuation.selectors.graph import Graph, Occurrence, Pattern
from memory.config import DecayConfig

NAME = "corrections"
MIN_WORDS = 2


def correction_line(text: str) -> str:
    return (f"- The operator has corrected the agent with these words, more than once: "
            f"{quote(text, limit=120)}.")


def _said(pattern: Pattern) -> dict[str, list[Occurrence]]:
    by_words: dict[str, list[Occurrence]] = defaultdict(list)
    for occ in pattern.occurrences:
        text = str(occ.payload.get("text") or "")
        if len(text.split()) >= MIN_WORDS:
            by_words[normalized(text)].append(occ)
    return by_words


def _draft(graph: Graph, pattern: Pattern, words: str, occurrences: list[Occurrence],
           config: DecayConfig) -> Draft | None:
    cfg = config.actuation.memory_entry
    sessions = {o.session for o in occurrences if o.session}
    if len(sessions) < cfg.min_sessions:
        return None
    text = str(occurrences[-1].payload.get("text") or words)
    path = memory_file(pattern.repository, config)
    before = graph.file(pattern.repository, path)
    edit = section_add_line(before, section=cfg.section, line=correction_line(text),
                            max_lines=config.actuation.claude_md.max_lines)
    if edit is None:
        return None
    rationale = (
        f"In {len(sessions)} sessions of {pattern.repository.name} the operator corrected the "
        f"agent with the same words, {quote(text, limit=120)} (their words, quoted). Writing "
        f"them in {path} lets the next session start from them."
    )
    return Draft(
        detector=NAME, diff_type="memory_entry", repository=pattern.repository, file_path=path,
        pattern_key=f"correction:{pattern.entity.id}:{words[:200]}",
        short_name=f"correction-{words}", title=f"Recurring correction: {quote(text, limit=80)}",
        rationale=rationale, before=before, after=edit.after, grounding=[pattern.entity],
        occurrences=occurrences,
        quotes=[Quote(text=quote(text), by="the operator",
                      event=occurrences[-1].events[0] if occurrences[-1].events else "")],
        warnings=[f"{path} would be {edit.lines} lines"] if edit.over_limit else [],
        recurrence={"category": "correction", "entity": pattern.entity.key},
    )


def detect(graph: Graph, now: datetime, config: DecayConfig) -> list[Draft]:
    drafts = []
    for pattern in graph.patterns(namespace="agent:*:failure-mode", category="correction",
                                  min_sessions=config.actuation.memory_entry.min_sessions):
        for words, occurrences in sorted(_said(pattern).items()):
            if draft := _draft(graph, pattern, words, occurrences, config):
                drafts.append(draft)
    return drafts


DETECTOR = Detector(name=NAME, diff_type="memory_entry", detect=detect)
