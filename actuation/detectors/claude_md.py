"""A recurring tool error (a root cause, `agent:*:rc`) across at least N sessions of a
project, still strong -> a line under the "Known pitfalls" section of its CLAUDE.md, saying
what the agent did next when the transcripts show it."""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime

from actuation.detectors.base import Detector, Draft, Quote
from actuation.formats.claude_md import section_add_line
from actuation.formats.quoting import quote
from actuation.selectors.graph import Graph, Pattern
from memory.config import DecayConfig

NAME = "tool_errors"
PATH = "CLAUDE.md"
_TOOL = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


def _tool(name: str) -> str:
    return f"`{name}`" if _TOOL.match(name) else quote(name, limit=40)


def _common(values: list[str]) -> str:
    return Counter(v for v in values if v).most_common(1)[0][0] if any(values) else ""


def _recovery(graph: Graph, pattern: Pattern, failing: str, config: DecayConfig) -> str:
    cfg = config.actuation.claude_md
    nexts = graph.next_tools(occurrences=pattern.occurrences, limit=cfg.recovery_sample)
    if not nexts:
        return ""
    best, count = Counter(nexts).most_common(1)[0]
    if best == failing or count < cfg.recovery_share * len(nexts):
        return ""
    return best


def _line(tool: str, message: str, recovery: str) -> str:
    line = f"- {_tool(tool)} fails with {quote(message)} (the tool's message, quoted)."
    if recovery:
        line += f" In the sessions where it happened, the agent ran {_tool(recovery)} next."
    return line


def _draft(graph: Graph, pattern: Pattern, config: DecayConfig) -> Draft | None:
    cfg = config.actuation.claude_md
    sessions = pattern.sessions
    if len(sessions) < cfg.min_sessions:
        return None
    payloads = [o.payload for o in pattern.occurrences]
    tool = _common([str(p.get("tool") or "") for p in payloads]) or "unknown"
    message = _common([str(p.get("normalized") or p.get("message") or "") for p in payloads])
    if not message:
        return None
    recovery = _recovery(graph, pattern, tool, config)
    before = graph.file(pattern.repository, PATH)
    line = _line(tool, message, recovery)
    edit = section_add_line(before, section=cfg.section, line=line, max_lines=cfg.max_lines)
    if edit is None:
        return None
    warnings = ([f"{PATH} would be {edit.lines} lines, past {cfg.max_lines}"]
                if edit.over_limit else [])
    rationale = (
        f"The tool {_tool(tool)} failed with the same error in {len(sessions)} sessions of "
        f"{pattern.repository.name} ({len(pattern.occurrences)} times in the last "
        f"{config.actuation.window_days:g} days); its root cause {pattern.entity.key} is still "
        f"strong ({pattern.entity.strength:.2f}). The tool's message, quoted: {quote(message)}."
        + (f" After it, the agent most often ran {_tool(recovery)}." if recovery else "")
        + " A line under the Known pitfalls section of CLAUDE.md lets the next session avoid it."
    )
    sample = pattern.occurrences[-1]
    return Draft(
        detector=NAME, diff_type="claude_md", repository=pattern.repository, file_path=PATH,
        pattern_key=f"rc:{pattern.entity.id}", short_name=f"pitfall-{tool}",
        title=f"Known pitfall: {tool} fails with {quote(message, limit=60)}",
        rationale=rationale, before=before, after=edit.after, grounding=[pattern.entity],
        occurrences=pattern.occurrences, warnings=warnings,
        quotes=[Quote(text=quote(message), by=f"the tool {tool}",
                      event=sample.events[0] if sample.events else "")],
        recurrence={"category": "tool_error", "entity": pattern.entity.key},
    )


def detect(graph: Graph, now: datetime, config: DecayConfig) -> list[Draft]:
    drafts = []
    for pattern in graph.patterns(namespace="agent:*:rc", category="tool_error",
                                  min_sessions=config.actuation.claude_md.min_sessions):
        if draft := _draft(graph, pattern, config):
            drafts.append(draft)
    return drafts


DETECTOR = Detector(name=NAME, diff_type="claude_md", detect=detect)
