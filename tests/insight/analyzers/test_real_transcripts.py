"""The analyzers over the real transcripts of ../shared/fixtures, ingested by the producer:
nothing rejected, every category the files hold comes out, one failure recurring across
sessions groups under one signature."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from insight.producers.base import NoProgress
from insight.producers.claude_code import ClaudeCodeProducer
from insight.services.analysis import analysis_batch_run
from memory.models.events import MemoryEvent
from memory.models.observations import Observation

pytestmark = [pytest.mark.django_db, pytest.mark.fixtures]


def test_real_transcripts_analyze_cleanly(shared_fixtures: Path) -> None:
    ClaudeCodeProducer(roots=[shared_fixtures / "claude-code"]).run(progress=NoProgress())
    rejected = 0
    while True:
        report = analysis_batch_run(source="claude-code", batch_size=500)
        rejected += report.rejected
        if not report.more:
            break
    assert rejected == 0
    categories = set(Observation.objects.values_list("category", flat=True))
    assert {"tool_error", "permission_request", "correction", "interaction",
            "project_activity"} <= categories
    stored = set(MemoryEvent.objects.values_list("id", flat=True))
    assert all(set(ids) <= stored for ids in Observation.objects.values_list("event_ids",
                                                                             flat=True))

    sessions_by_signature: dict[str, set[str]] = defaultdict(set)
    for payload, session in Observation.objects.filter(category="tool_error").values_list(
            "payload_typed", "correlation_session"):
        sessions_by_signature[payload["signature"]].add(session)
    not_read = [sig for sig, sessions in sessions_by_signature.items() if len(sessions) > 1]
    assert not_read, "no failure recurs across sessions under one signature"
    messages = Observation.objects.filter(category="tool_error",
                                          payload_typed__signature__in=not_read)
    assert "file has not been read yet" in " ".join(
        m.payload_typed["normalized"] for m in messages)
