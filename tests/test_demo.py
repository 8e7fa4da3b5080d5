"""`cortex demo`: the whole loop once on the generated corpus, and again with nothing new."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from insight.demo.run import demo_run
from memory.models import Entity, MemoryEvent, Observation, ObservationStatus


@pytest.mark.django_db(transaction=True)
def test_demo_runs_every_layer_and_a_second_run_adds_nothing(tmp_path: Path) -> None:
    first = demo_run(out=tmp_path / "demo")

    assert first.ingest.sessions.events_stored > 100
    assert first.ingest.git is not None and first.ingest.git.events_stored > 100
    categories = set(first.analysis.observations_created)
    assert {"instructions", "corrections", "tool_errors", "permissions"} <= categories
    assert first.retain.processed == Observation.objects.count()
    assert not Observation.objects.filter(status=ObservationStatus.PENDING).exists()
    assert first.sleep_cycle.status == "succeeded"
    assert first.graph.counts["entities"] == Entity.objects.count() > 20
    assert first.graph.strongest
    # The operator goes back on "never use requests": one conflict waits for review.
    assert [c["entity"] for c in first.graph.conflicts] == [
        "agent:claude-code:instruction:use-requests"
    ]

    events, observations = MemoryEvent.objects.count(), Observation.objects.count()
    second = demo_run(out=tmp_path / "demo")
    assert second.ingest.sessions.events_stored == 0
    assert MemoryEvent.objects.count() == events
    assert Observation.objects.count() == observations


@pytest.mark.django_db(transaction=True)
def test_demo_command_prints_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    call_command("demo", out=tmp_path / "demo")
    output = capsys.readouterr().out
    for heading in ("counts per layer", "Strongest entities", "Routes", "Open conflicts",
                    "Recall:", "Context for billing-api"):
        assert heading in output
    assert "<cortex-context" in output and "</cortex-context>" in output
    # read as of the end of its corpus, not months later when all of it has faded: the
    # context holds the operator's rules for the project
    assert "the operator said: `use requests` (negated: not so)" in output
