"""proposed -> approved -> applied | failed; proposed -> rejected | superseded: no
transition skipped, decisions only by an operator, each one a raw event first, and a
rejected change never proposed again."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django_fsm import TransitionNotAllowed

from actuation.models import Proposal, TargetRepository
from actuation.services import proposals as proposal_services
from actuation.services.detection import detection_run
from actuation.services.proposals import proposal_approve, proposal_reject
from memory.errors import Invalid, Refused
from memory.models import MemoryEvent
from tests.actuation import graphs
from tests.actuation.helpers import NOW, detected, operator


@pytest.fixture(autouse=True)
def _no_apply() -> object:
    with mock.patch.object(proposal_services, "task_enqueue") as queued:
        yield queued


@pytest.mark.django_db
def test_approve_records_a_raw_event_then_the_state(target: TargetRepository) -> None:
    operator("alice")
    proposal = detected()
    approved = proposal_approve(proposal_id=proposal.pk, by="alice", now=NOW)
    assert approved.state == "approved" and approved.decided_by == "alice"
    event = MemoryEvent.objects.get(source="operator:alice")
    assert (event.type, event.subtype) == ("decision", "proposal.approve")
    assert event.payload["proposal"] == proposal.pk
    assert event.payload["content_hash"] == proposal.content_hash


@pytest.mark.django_db
def test_approving_queues_the_apply_task(target: TargetRepository, _no_apply: mock.Mock) -> None:
    operator("alice")
    proposal = detected()
    proposal_approve(proposal_id=proposal.pk, by="alice", now=NOW)
    _no_apply.assert_called_once_with("actuation.proposal_apply", proposal_id=proposal.pk)


@pytest.mark.django_db
def test_only_an_operator_decides(target: TargetRepository) -> None:
    operator("bob", staff=False)
    proposal = detected()
    for by in ("bob", "nobody"):
        with pytest.raises(Refused):
            proposal_approve(proposal_id=proposal.pk, by=by, now=NOW)
        with pytest.raises(Refused):
            proposal_reject(proposal_id=proposal.pk, by=by, reason="no", now=NOW)
    proposal.refresh_from_db()
    assert proposal.state == "proposed"
    assert not MemoryEvent.objects.filter(type="decision").exists()


@pytest.mark.django_db
def test_no_transition_is_skipped(target: TargetRepository) -> None:
    operator("alice")
    proposal = detected()
    with pytest.raises(TransitionNotAllowed):
        proposal.mark_applied(at=NOW, branch="b", commit_sha="x", pr_url="", pr_command="")
    with pytest.raises(TransitionNotAllowed):
        proposal.mark_failed(reason="x")
    with pytest.raises(AttributeError):
        proposal.state = "applied"  # the state field is protected: transitions only
    proposal_reject(proposal_id=proposal.pk, by="alice", reason="not useful", now=NOW)
    with pytest.raises(Refused):
        proposal_approve(proposal_id=proposal.pk, by="alice", now=NOW)
    proposal.refresh_from_db()
    assert proposal.state == "rejected"


@pytest.mark.django_db
def test_a_rejection_needs_a_reason(target: TargetRepository) -> None:
    operator("alice")
    proposal = detected()
    with pytest.raises(Invalid):
        proposal_reject(proposal_id=proposal.pk, by="alice", reason="  ", now=NOW)


@pytest.mark.django_db
def test_a_rejected_change_is_never_proposed_again(target: TargetRepository) -> None:
    operator("alice")
    proposal = detected()
    proposal_reject(proposal_id=proposal.pk, by="alice", reason="we know", now=NOW)
    event = MemoryEvent.objects.get(source="operator:alice", subtype="proposal.reject")
    assert event.payload["reason"] == "we know"
    # The pattern goes on in more sessions, and the operator edits CLAUDE.md meanwhile: the
    # same change (by content hash) is still not proposed.
    graphs.submit(graphs.tool_errors(sessions=3, prefix="later",
                                     start=graphs.T0 + timedelta(hours=10)))
    report = detection_run(now=NOW + timedelta(hours=12))
    assert not report.drafts and not report.proposals  # the rejected pitfall is remembered
    assert Proposal.objects.count() == 1


@pytest.mark.django_db
def test_a_newer_proposal_for_the_same_pattern_supersedes_the_open_one(
        target: TargetRepository) -> None:
    first = detected()
    Proposal.objects.filter(pk=first.pk).update(content_hash="0" * 64, diff_sha256="0")
    report = detection_run(now=NOW + timedelta(hours=1))
    first.refresh_from_db()
    assert first.state == "superseded" and first.superseded_by_id == report.proposals[0]
