"""The analyzers: deterministic, rule-based, English and French. Each is its own module
exposing `ANALYZER` (name, sources, `analyze(events) -> list[ObservationDraft]`)."""

from __future__ import annotations

from insight.analyzers import (
    corrections,
    gh_interactions,
    git_history,
    instructions,
    memories,
    permissions,
    project_activity,
    speech_acts,
    tool_errors,
)
from insight.analyzers.base import Analyzer, Event, ObservationDraft

ANALYZERS: dict[str, Analyzer] = {
    module.ANALYZER.name: module.ANALYZER
    for module in (instructions, corrections, tool_errors, permissions, project_activity,
                   speech_acts, git_history, gh_interactions, memories)
}

__all__ = ["ANALYZERS", "Analyzer", "Event", "ObservationDraft"]
