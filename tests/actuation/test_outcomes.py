"""Did it help? After a proposal is applied its detector keeps counting: sessions since and
recurrences since; once enough sessions ran, the outcome is feedback on the grounding
entities (negative here: the error went on). And the sweep re-queues lost applies."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest

from actuation.models import TargetRepository
from actuation.selectors.proposals import proposal_outcome_line
from actuation.services import proposals as proposal_services
from actuation.services.applying import proposal_apply
from actuation.services.detection import detection_run
from actuation.services.proposals import proposal_approve
from actuation.services.sweep import approved_unapplied
from memory.config import config_get
from memory.models import Entity, MemoryEvent
from tests.actuation import graphs
from tests.actuation.helpers import NOW, detected, operator

OUTCOME = config_get().actuation.outcome


@pytest.fixture(autouse=True)
def _no_queue() -> object:
    with mock.patch.object(proposal_services, "task_enqueue"):
        yield


@pytest.mark.django_db
def test_the_pattern_going_on_turns_the_outcome_negative(target: TargetRepository) -> None:
    operator("alice")
    proposal = detected()
    proposal_approve(proposal_id=proposal.pk, by="alice", now=NOW)
    proposal = proposal_apply(proposal_id=proposal.pk, now=NOW)
    assert proposal.state == "applied"
    rc = proposal.entities.get()

    later = NOW + timedelta(hours=1)
    graphs.submit(graphs.tool_errors(sessions=OUTCOME.min_sessions - 1, prefix="a", start=later,
                                     spacing=timedelta(hours=1)))
    detection_run(now=later + timedelta(days=1))
    proposal.refresh_from_db()
    assert (proposal.sessions_since, proposal.recurrences_since) == (
        OUTCOME.min_sessions - 1, OUTCOME.min_sessions - 1)
    assert proposal.outcome == ""  # not enough sessions yet
    assert proposal_outcome_line(proposal) == (
        f"since applied: {OUTCOME.min_sessions - 1} recurrences in "
        f"{OUTCOME.min_sessions - 1} sessions")

    graphs.submit(graphs.tool_errors(sessions=1, prefix="b", start=later + timedelta(days=1)))
    detection_run(now=later + timedelta(days=2))
    proposal.refresh_from_db()
    assert proposal.outcome == "negative"
    fed = Entity.objects.get(pk=rc.pk)
    assert (fed.pos, fed.neg) == (rc.pos, rc.neg + 1)
    event = MemoryEvent.objects.get(source="cortex:actuation", type="decision")
    assert event.payload["entity"] == rc.key and event.payload["outcome"] == "negative"
    detection_run(now=later + timedelta(days=3))  # judged once: no second feedback
    assert Entity.objects.get(pk=rc.pk).neg == rc.neg + 1


@pytest.mark.django_db
def test_the_sweep_finds_approvals_whose_task_was_lost(target: TargetRepository) -> None:
    operator("alice")
    proposal = detected()
    proposal_approve(proposal_id=proposal.pk, by="alice", now=NOW)
    wait = timedelta(seconds=config_get().actuation.apply_sweep_after_seconds)
    assert approved_unapplied(now=NOW + wait / 2) == []
    assert approved_unapplied(now=NOW + wait) == [proposal.pk]
