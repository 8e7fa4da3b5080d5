"""The whole loop: sessions in which the same tool error recurs are ingested and
consolidated; a claude_md proposal appears, is approved, lands as a commit; later sessions
without the error turn its outcome positive (feedback on the root cause)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from unittest import mock

import pytest

from actuation.models import Proposal, TargetRepository
from actuation.selectors.proposals import proposal_outcome_line
from actuation.services import proposals as proposal_services
from actuation.services.applying import proposal_apply
from actuation.services.proposals import proposal_approve
from memory.config import config_get
from memory.models import Entity
from tests.actuation.helpers import operator
from tests.actuation.repos import Repo, run_git
from tests.actuation.sessions import loop_run, sessions_write

START = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)


@pytest.fixture
def transcripts(tmp_path: Path) -> Path:
    root = tmp_path / "projects"
    root.mkdir()
    return root


@pytest.mark.django_db(transaction=True)
def test_the_whole_loop(target: TargetRepository, repo: Repo, transcripts: Path) -> None:
    cfg = config_get().actuation
    operator("alice")
    cwd = str(repo.clone)
    sessions_write(transcripts, cwd=cwd, start=START, count=cfg.claude_md.min_sessions,
                   seed=1, error=True)
    run = loop_run(transcripts, now=START + timedelta(days=1))
    assert run.status == "succeeded", run.error
    (proposal,) = Proposal.objects.filter(diff_type="claude_md")
    assert "has not been read yet" in proposal.diff
    assert "+- Read a file before editing or writing it. Otherwise `Edit` fails" in proposal.diff

    with mock.patch.object(proposal_services, "task_enqueue"):
        proposal_approve(proposal_id=proposal.pk, by="alice", now=START + timedelta(days=1))
    proposal = proposal_apply(proposal_id=proposal.pk, now=START + timedelta(days=1, hours=1))
    assert proposal.state == "applied", proposal.failure_reason
    shown = run_git(repo.remote, "show", f"{proposal.commit_sha}:CLAUDE.md")
    assert "## Known pitfalls" in shown and "has not been read yet" in shown

    rc = Entity.objects.get(pk=proposal.evidence["entities"][0]["id"])
    assert (rc.pos, rc.neg) == (0, 0)
    later = START + timedelta(days=2)
    sessions_write(transcripts, cwd=cwd, start=later, count=cfg.outcome.min_sessions, seed=50,
                   error=False)
    run = loop_run(transcripts, now=later + timedelta(days=2))
    assert run.status == "succeeded", run.error
    proposal.refresh_from_db()
    assert proposal.sessions_since == cfg.outcome.min_sessions
    assert proposal.recurrences_since == 0
    assert proposal.outcome == "positive"
    assert proposal_outcome_line(proposal).startswith(
        f"since applied: 0 recurrences in {cfg.outcome.min_sessions} sessions")
    rc.refresh_from_db()
    assert (rc.pos, rc.neg) == (1, 0)
