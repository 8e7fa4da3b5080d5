"""The agent's pitfalls -> one CLAUDE.md change per repository and detection: a line per
pitfall under the "Known pitfalls" section, saying what to do ("Read a file before editing
or writing it").

A tool error (a root cause, `agent:*:rc`) is a pitfall when the same behaviour of the agent
failed the same way in at least `min_sessions` distinct sessions (`Graph.distinct`: one
session imported again under another id counts once) over at least `min_days` days, and
the agent got past it by doing something else: its next step was another one (not a retry,
not an edit of the code), after which the failing step succeeded ("Read, then Edit") or which
did the job itself ("uv run pytest" for "pytest"), in at least `recovery_share` of the
sampled occurrences, the same step in at least half of those. An error whose text names
the code being worked on, an empty message or progress output is never one
(`pitfall_text`)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from datetime import datetime

from actuation.detectors.base import Detector, Draft, Item, Quote
from actuation.detectors.pitfall_text import pitfall_advice, pitfall_text_refusal
from actuation.detectors.steps import BOOKKEEPING, EDITS, step_of, step_tool
from actuation.formats.claude_md import section_add_lines
from actuation.formats.items import items_title
from actuation.formats.quoting import quote
from actuation.models import TargetRepository
from actuation.selectors.graph import Graph, Pattern, ToolUse
from memory.config import DecayConfig

NAME = "tool_errors"
PATH = "CLAUDE.md"


@dataclasses.dataclass(frozen=True)
class Pitfall:
    pattern: Pattern
    failing: str
    message: str
    recovery: str
    kind: str  # "before": the step, then the failing one again; "instead": the step did it
    recovered: int
    sampled: int
    days: int

    @property
    def advice(self) -> str:
        return pitfall_advice(message=self.message, failing=self.failing,
                              recovery=self.recovery, kind=self.kind)

    @property
    def line(self) -> str:
        return (f"- {self.advice}. Otherwise {_shown(self.failing)} fails with "
                f"{quote(self.message)} (the tool's message, quoted).")


def _shown(step: str) -> str:
    return f"`{step.split(': ', 1)[1]}`" if step.startswith("Bash: ") else f"`{step}`"


def _common(values: list[str]) -> str:
    return Counter(v for v in values if v).most_common(1)[0][0] if any(values) else ""


def _same(step: str, failing: str) -> bool:
    """The failing step again: itself, or another edit after a failed edit (Write, Edit)."""
    return step == failing or (step in EDITS and failing in EDITS)


def recovery_of(failing: str, after: list[ToolUse]) -> tuple[str, str] | None:
    """(kind, step) when the agent got past the failure by doing something else: its next
    step differs from the failing one and changes no file, then the failing step succeeded
    ("before"), or the next step, of the same tool, succeeded in its place ("instead")."""
    steps = [(step_of(u.tool, u.command), u.failed) for u in after
             if u.tool not in BOOKKEEPING]
    if not steps or not steps[0][0] or steps[0][0] == failing:
        return None
    recovery, recovery_failed = steps[0]
    if step_tool(recovery) in EDITS:
        return None
    if any(_same(step, failing) and failed is False for step, failed in steps[1:]):
        return "before", recovery
    if step_tool(recovery) == step_tool(failing) and recovery_failed is False:
        return "instead", recovery
    return None


def _pitfall(graph: Graph, pattern: Pattern, config: DecayConfig) -> Pitfall | None:
    cfg = config.actuation.claude_md
    pattern = dataclasses.replace(pattern, occurrences=graph.distinct(pattern.repository,
                                                                      pattern.occurrences))
    days = {o.at.date() for o in pattern.occurrences}
    if len(pattern.sessions) < cfg.min_sessions or len(days) < cfg.min_days:
        return None
    payloads = [o.payload for o in pattern.occurrences]
    message = _common([str(p.get("normalized") or p.get("message") or "") for p in payloads])
    if pitfall_text_refusal(message) is not None:
        return None
    failing = _common([step_of(str(p.get("tool") or ""), str(p.get("command") or ""))
                       for p in payloads])
    if not failing:
        return None
    after = graph.uses_after(occurrences=pattern.occurrences, sample=cfg.recovery_sample,
                             steps=cfg.recovery_steps)
    own = {o.observation: step_of(str(o.payload.get("tool") or ""),
                                  str(o.payload.get("command") or ""))
           for o in pattern.occurrences}
    found = [r for key, uses in after.items() if (r := recovery_of(own[key] or failing, uses))]
    if not found or len(found) < cfg.recovery_share * len(after):
        return None  # most times, the agent did not get past it by another step
    (kind, recovery), count = Counter(found).most_common(1)[0]
    if 2 * count < len(found):
        return None  # no one way round it

    return Pitfall(pattern=pattern, failing=failing, message=message, recovery=recovery,
                   kind=kind, recovered=count, sampled=len(after), days=len(days))


def _item(p: Pitfall) -> Item:
    occ = p.pattern.occurrences
    return Item(key=p.pattern.entity.key, line=p.line, evidence={
        "entity": p.pattern.entity.key, "sessions": len(p.pattern.sessions), "days": p.days,
        "times": len(occ), "last_seen": max(o.at for o in occ).isoformat(),
        "recovered": f"{p.recovered} of {p.sampled}", "then": p.recovery,
        "session_ids": sorted(p.pattern.sessions)[-20:],
        "events": sorted({e for o in occ for e in o.events})[-20:]})


def _one_per_advice(pitfalls: list[Pitfall]) -> list[Pitfall]:
    """One line per thing to do: "Check that a path exists" once for `cat` and `ls` alike,
    the first (most evidenced) standing for the others."""
    seen: set[str] = set()
    kept = []
    for pitfall in pitfalls:
        if pitfall.advice not in seen:
            seen.add(pitfall.advice)
            kept.append(pitfall)
    return kept


def _draft(graph: Graph, repository: TargetRepository, pitfalls: list[Pitfall],
           config: DecayConfig) -> Draft | None:
    cfg = config.actuation.claude_md
    pitfalls = sorted(pitfalls, key=lambda p: (-len(p.pattern.sessions), p.pattern.entity.key))
    pitfalls = _one_per_advice(pitfalls)
    before = graph.file(repository, PATH)
    edit = section_add_lines(before, section=cfg.section, lines=[p.line for p in pitfalls],
                             max_lines=cfg.max_lines)
    if edit is None:
        return None
    pitfalls = [p for p in pitfalls if p.line in edit.after.splitlines()
                and p.line not in (before or "").splitlines()]
    items = [_item(p) for p in pitfalls]
    listing = "; ".join(
        f"{_shown(p.failing)} failed with {quote(p.message, limit=80)} in "
        f"{len(p.pattern.sessions)} sessions over {p.days} days, and {p.recovered} of "
        f"{p.sampled} times the agent then ran {_shown(p.recovery)}"
        + (" and the step succeeded" if p.kind == "before" else " instead") for p in pitfalls)
    rationale = (
        f"Mistakes the agent made again and again in {repository.name} in the last "
        f"{config.actuation.window_days:g} days, and got past by doing something else: "
        f"{listing}. A line each under the Known pitfalls section of {PATH} tells the next "
        "session what to do first. Drop any line before approving and it is not proposed "
        "again."
    )
    return Draft(
        detector=NAME, diff_type="claude_md", repository=repository, file_path=PATH,
        pattern_key=f"pitfalls:{repository.pk}", short_name=f"pitfalls-{len(items)}",
        title=items_title(diff_type="claude_md", keys=[i.key for i in items],
                          lines=[i.line for i in items])[:300],
        rationale=rationale, before=before,
        after=edit.after, grounding=[p.pattern.entity for p in pitfalls],
        occurrences=[o for p in pitfalls for o in p.pattern.occurrences], items=items,
        section=cfg.section,
        warnings=([f"{PATH} would be {edit.lines} lines, past {cfg.max_lines}"]
                  if edit.over_limit else []),
        quotes=[Quote(text=quote(p.message), by=f"the tool {step_tool(p.failing)}",
                      event=p.pattern.occurrences[-1].events[0]
                      if p.pattern.occurrences[-1].events else "") for p in pitfalls],
        recurrence={"category": "tool_error",
                    "entities": [p.pattern.entity.key for p in pitfalls]},
        admitted_by=(f"pitfalls: {len(items)} tool {'error' if len(items) == 1 else 'errors'}"
                     f" each in >= {cfg.min_sessions} distinct sessions (one imported twice "
                     f"counts once) over >= {cfg.min_days} days, "
                     "the agent's own mistake (no code named, not empty, not progress), "
                     f"recovered by another step in >= {cfg.recovery_share:.0%} of the "
                     "sampled times; grouped into one CLAUDE.md change for the repository"),
    )


def detect(graph: Graph, now: datetime, config: DecayConfig) -> list[Draft]:
    by_repository: dict[int, list[Pitfall]] = {}
    for pattern in graph.patterns(namespace="agent:*:rc", category="tool_error",
                                  min_sessions=config.actuation.claude_md.min_sessions):
        if pattern.entity.key in graph.settled(pattern.repository, NAME):
            continue
        if found := _pitfall(graph, pattern, config):
            by_repository.setdefault(pattern.repository.pk, []).append(found)
    return [d for r in graph.repositories if (found_here := by_repository.get(r.pk))
            and (d := _draft(graph, r, found_here, config)) is not None]


DETECTOR = Detector(name=NAME, diff_type="claude_md", detect=detect)
