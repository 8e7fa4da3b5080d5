"""Applying against a local bare repository as the remote: the commit on the branch holds
exactly the approved diff; a stale proposal fails cleanly; the operator's working tree and
index are untouched on success and on failure."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from unittest import mock

import pytest

from actuation.models import Proposal, TargetRepository
from actuation.services import proposals as proposal_services
from actuation.services.applying import proposal_apply
from actuation.services.detection import detection_run
from actuation.services.proposals import proposal_approve
from actuation.tasks import proposal_apply_task
from tests.actuation.helpers import NOW, detected, operator
from tests.actuation.repos import Repo, commit_file, run_git, snapshot


@pytest.fixture(autouse=True)
def _no_queue() -> object:
    with mock.patch.object(proposal_services, "task_enqueue"):
        yield


def _dirty(repo: Repo) -> None:
    """The operator is mid-work: an unstaged edit, a staged file, an untracked file."""
    (repo.clone / "README.md").write_text("# shop\n\nwork in progress\n")
    (repo.clone / "staged.txt").write_text("staged\n")
    run_git(repo.clone, "add", "staged.txt")
    (repo.clone / "scratch.txt").write_text("untracked\n")


def _approved(target: TargetRepository) -> int:
    operator("alice")
    proposal = detected()
    proposal_approve(proposal_id=proposal.pk, by="alice", now=NOW)
    return proposal.pk


@pytest.mark.django_db
def test_the_commit_holds_exactly_the_approved_diff(target: TargetRepository, repo: Repo) -> None:
    proposal_id = _approved(target)
    _dirty(repo)
    before = snapshot(repo)

    proposal = proposal_apply(proposal_id=proposal_id)

    assert proposal.state == "applied", proposal.failure_reason
    assert proposal.branch == f"cortex/{proposal.pk}-{proposal.short_name}"
    remote_sha = run_git(repo.remote, "rev-parse", f"refs/heads/{proposal.branch}").strip()
    assert remote_sha == proposal.commit_sha
    main = run_git(repo.remote, "rev-parse", "refs/heads/main").strip()
    assert run_git(repo.remote, "rev-parse", f"{proposal.commit_sha}^").strip() == main
    landed = run_git(repo.remote, "diff", f"{main}..{proposal.commit_sha}")
    landed_id = run_git(repo.remote, "patch-id", "--stable", input_text=landed)
    approved_id = run_git(repo.remote, "patch-id", "--stable", input_text=proposal.diff)
    assert landed_id.split()[0] == approved_id.split()[0]
    assert run_git(repo.remote, "diff", "--name-only", f"{main}..{proposal.commit_sha}") \
        == "CLAUDE.md\n"
    message = run_git(repo.remote, "log", "-1", "--format=%B", proposal.commit_sha)
    assert f"#{proposal.pk}" in message and "Evidence:" in message
    assert "gh pr create" in proposal.pr_command and proposal.pr_url == ""
    assert snapshot(repo) == before
    assert run_git(repo.clone, "worktree", "list").count("\n") == 1


@pytest.mark.django_db
def test_a_stale_proposal_fails_cleanly(target: TargetRepository, repo: Repo) -> None:
    proposal_id = _approved(target)
    # The operator rewrote CLAUDE.md since: the diff's context is gone.
    commit_file(repo, "CLAUDE.md", "# Shop, rewritten\n\nNothing in common.\n")
    _dirty(repo)
    before = snapshot(repo)

    proposal = proposal_apply(proposal_id=proposal_id)

    assert proposal.state == "failed"
    assert "no longer applies" in proposal.failure_reason
    assert run_git(repo.remote, "branch", "--list", "cortex/*") == ""
    assert snapshot(repo) == before
    assert run_git(repo.clone, "worktree", "list").count("\n") == 1
    # A newer detection proposes the same change again, against the file as it is now.
    report = detection_run(now=NOW + timedelta(hours=1))
    (again,) = Proposal.objects.filter(pk__in=report.proposals)
    assert again.state == "proposed" and "-Nothing in common." not in again.diff
    assert again.content_hash == proposal.content_hash


@pytest.mark.django_db
def test_applying_is_idempotent(target: TargetRepository, repo: Repo) -> None:
    proposal_id = _approved(target)
    first = proposal_apply(proposal_id=proposal_id)
    again = proposal_apply(proposal_id=proposal_id)
    assert again.state == "applied" and again.commit_sha == first.commit_sha


@pytest.mark.django_db
def test_the_task_applies(target: TargetRepository, repo: Repo) -> None:
    proposal_id = _approved(target)
    result = proposal_apply_task.apply(kwargs={"proposal_id": proposal_id}).get()
    assert result == {"proposal": proposal_id, "state": "applied"}


@pytest.mark.django_db
def test_a_pull_request_is_opened_with_gh_when_it_is_configured(
        target: TargetRepository, repo: Repo, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in `gh` on the PATH: `auth status` succeeds, `pr create` records its arguments
    and body and prints the pull request's URL."""
    bin_dir, calls = tmp_path / "bin", tmp_path / "gh-calls.txt"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(f'#!/bin/sh\necho "$@" >> {calls}\nif [ "$1" = pr ]; then cat >> {calls}; '
                  'echo https://example.invalid/shop/pull/7; fi\n')
    gh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/local/bin:/usr/bin:/bin")
    TargetRepository.objects.filter(pk=target.pk).update(pr_mode="gh")
    proposal_id = _approved(target)

    proposal = proposal_apply(proposal_id=proposal_id)

    assert proposal.state == "applied" and proposal.pr_url == "https://example.invalid/shop/pull/7"
    recorded = calls.read_text()
    assert f"pr create --base main --head {proposal.branch}" in recorded
    assert "## Why" in recorded and "## How to reject" in recorded
    assert "has not been read yet" in recorded  # the evidence, quoted
