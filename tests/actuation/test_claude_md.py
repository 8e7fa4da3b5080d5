"""The tool-error detector: a recurring root cause the agent recovered from, across N sessions
of a project, becomes a line under the Known pitfalls section of its CLAUDE.md saying what
to do; N - 1 sessions do not."""

from __future__ import annotations

from datetime import timedelta

import pytest

from actuation.models import Proposal, TargetRepository
from actuation.services.detection import detection_run
from memory.config import config_get
from memory.models import Entity, EntityStatus
from tests.actuation import graphs

MIN = config_get().actuation.claude_md.min_sessions
NOW = graphs.T0 + timedelta(days=1)


@pytest.mark.django_db
def test_fires_at_the_threshold(target: TargetRepository) -> None:
    graphs.submit(graphs.tool_errors(sessions=MIN))

    report = detection_run(now=NOW)

    (proposal,) = Proposal.objects.all()
    assert report.proposals == [proposal.pk]
    assert proposal.diff_type == "claude_md" and proposal.file_path == "CLAUDE.md"
    assert proposal.state == "proposed"
    added = [line[1:] for line in proposal.diff.splitlines()
             if line.startswith("+") and not line.startswith("+++")]
    assert "## Known pitfalls" in added
    assert ('- Read a file before editing or writing it. Otherwise `Edit` fails with "file has '
            'not been read yet" (the tool\'s message, quoted).' in added)
    assert not [line for line in proposal.diff.splitlines()
                if line.startswith("-") and not line.startswith("---")]
    assert len(proposal.evidence["sessions"]) == MIN
    assert len(proposal.evidence["events"]) == MIN
    assert str(MIN) in proposal.rationale


@pytest.mark.django_db
def test_does_not_fire_below_the_threshold(target: TargetRepository) -> None:
    graphs.submit(graphs.tool_errors(sessions=MIN - 1))
    detection_run(now=NOW)
    assert not Proposal.objects.exists()


@pytest.mark.django_db
def test_other_projects_do_not_count(target: TargetRepository) -> None:
    graphs.submit(graphs.tool_errors(sessions=MIN - 1)
                  + graphs.tool_errors(sessions=2, project="other", cwd="/home/op/other",
                                       prefix="o"))
    detection_run(now=NOW)
    assert not Proposal.objects.exists()


@pytest.mark.django_db
def test_a_quarantined_root_cause_grounds_nothing(target: TargetRepository) -> None:
    graphs.submit(graphs.tool_errors(sessions=MIN + 2))
    Entity.objects.filter(namespace__path="agent:claude-code:rc").update(
        status=EntityStatus.QUARANTINED)
    detection_run(now=NOW)
    assert not Proposal.objects.exists()


@pytest.mark.django_db
def test_a_faded_root_cause_grounds_nothing(target: TargetRepository) -> None:
    graphs.submit(graphs.tool_errors(sessions=MIN + 2))
    # Weaker than the injection threshold (0.35), whatever the emotional multiplier.
    Entity.objects.filter(namespace__path="agent:claude-code:rc").update(base=0.1,
                                                                         strength=None)
    detection_run(now=NOW)
    assert not Proposal.objects.exists()


@pytest.mark.django_db
def test_the_same_change_is_not_proposed_twice(target: TargetRepository) -> None:
    graphs.submit(graphs.tool_errors(sessions=MIN))
    detection_run(now=NOW)
    second = detection_run(now=NOW + timedelta(hours=1))
    assert Proposal.objects.count() == 1
    assert second.outcomes == {"already_open": 1}
