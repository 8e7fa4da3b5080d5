"""Applying an approved proposal as the bots operators trust do it: a fresh worktree at the
tip of the base branch (the operator's working tree and index are never touched), the patch
checked again against the file as it is now, exactly the approved diff committed on branch
`cortex/<id>-<short name>`, pushed, and a pull request opened with `gh` when it is
available and configured (else the command that opens it is recorded)."""

from __future__ import annotations

import dataclasses
import shlex
import subprocess
import tempfile
from datetime import datetime
from pathlib import Path

from django.db import transaction

from actuation import gitops
from actuation.formats.diff import sha256_text
from actuation.models import Proposal, ProposalState, PullRequestMode
from actuation.selectors.proposals import proposal_pr_body
from memory import clock
from memory.config import DecayConfig, config_get


class PatchStale(Exception):
    """The approved diff no longer applies to the file at the tip of the base branch."""


@dataclasses.dataclass(frozen=True)
class Landed:
    branch: str
    commit_sha: str
    pr_url: str
    pr_command: str


def proposal_branch(proposal: Proposal) -> str:
    return f"cortex/{proposal.pk}-{proposal.short_name}"


def _message(proposal: Proposal) -> str:
    evidence = proposal.evidence or {}
    entities = ", ".join(e.get("key", "") for e in evidence.get("entities", []))
    return (f"cortex: {proposal.title}\n\n{proposal.rationale}\n\n"
            f"Proposal: #{proposal.pk} ({proposal.diff_type}, detector {proposal.detector})\n"
            f"Evidence: {len(evidence.get('sessions', []))} sessions, "
            f"{len(evidence.get('events', []))} raw events; entities {entities}\n"
            f"Approved-by: {proposal.decided_by}\nContent-Hash: {proposal.content_hash}\n")


def _patch_id(repo: Path, diff: str, timeout: float) -> str:
    out = gitops.git(repo, "patch-id", "--stable", stdin=diff, timeout=timeout)
    return out.split(" ", 1)[0]


def _commit(worktree: Path, proposal: Proposal, base: str, timeout: float) -> str:
    try:
        gitops.git(worktree, "apply", "--check", "-", stdin=proposal.diff, timeout=timeout)
    except gitops.GitFailed as exc:
        raise PatchStale(f"the diff no longer applies to {proposal.file_path} at "
                         f"{base[:12]}: {exc.stderr[-300:]}") from None
    gitops.git(worktree, "apply", "--index", "-", stdin=proposal.diff, timeout=timeout)
    when = (proposal.decided_at or clock.now()).isoformat()
    env = {**gitops.IDENTITY, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    gitops.git(worktree, "commit", "--no-verify", "--no-gpg-sign", "-q", "-F", "-",
               stdin=_message(proposal), env=env, timeout=timeout)
    landed = gitops.git(worktree, "diff", "--no-color", "--no-ext-diff", f"{base}..HEAD",
                        timeout=timeout)
    if _patch_id(worktree, landed, timeout) != _patch_id(worktree, proposal.diff, timeout):
        raise RuntimeError("the commit does not hold exactly the approved diff")
    return gitops.git(worktree, "rev-parse", "HEAD", timeout=timeout).strip()


def _pull_request(worktree: Path, proposal: Proposal, branch: str,
                  timeout: float) -> tuple[str, str]:
    repository = proposal.repository
    args = ["gh", "pr", "create", "--base", repository.default_branch, "--head", branch,
            "--title", f"cortex: {proposal.title}", "--body-file", "-"]
    command = shlex.join(args[:-1] + ["PR_BODY.md"])
    if repository.pr_mode != PullRequestMode.GH or not gitops.gh_available(
            cwd=worktree, timeout=timeout):
        return "", command
    try:
        out = gitops.run(args, cwd=worktree, timeout=timeout, stdin=proposal_pr_body(proposal))
    except (gitops.GitFailed, OSError, subprocess.TimeoutExpired):
        return "", command
    urls = [w for w in out.split() if w.startswith("http")]
    return (urls[-1] if urls else out.strip()[:500]), command


def land(proposal: Proposal, *, config: DecayConfig) -> Landed:
    """The git work, in a worktree of Cortex's own that is removed afterwards."""
    timeout = float(config.actuation.command_timeout_seconds)
    repo = Path(proposal.repository.path)
    branch = proposal_branch(proposal)
    base = gitops.tip(repo, ref=proposal.repository.default_branch, timeout=timeout)
    with tempfile.TemporaryDirectory(prefix="cortex-apply-") as tmp:
        worktree = Path(tmp) / "worktree"
        gitops.git(repo, "worktree", "add", "-q", "-B", branch, str(worktree), base,
                   timeout=timeout)
        try:
            sha = _commit(worktree, proposal, base, timeout)
            gitops.git(worktree, "push", "-q", proposal.repository.remote,
                       f"{branch}:refs/heads/{branch}", timeout=timeout)
            pr_url, pr_command = _pull_request(worktree, proposal, branch, timeout)
        finally:
            gitops.git(repo, "worktree", "remove", "--force", str(worktree), timeout=timeout)
    return Landed(branch=branch, commit_sha=sha, pr_url=pr_url, pr_command=pr_command)


def proposal_apply(*, proposal_id: int, now: datetime | None = None,
                   config: DecayConfig | None = None) -> Proposal:
    """Idempotent: a proposal that is not approved (already applied, failed) is left as is.
    A stale patch fails the proposal with its reason; other errors propagate (retried)."""
    config = config or config_get()
    proposal = Proposal.objects.select_related("repository").get(pk=proposal_id)
    if proposal.state != ProposalState.APPROVED:
        return proposal
    if sha256_text(proposal.diff) != proposal.diff_sha256:
        return proposal_fail(proposal_id=proposal_id, reason="the diff does not match its hash")
    try:
        landed = land(proposal, config=config)
    except PatchStale as exc:
        return proposal_fail(proposal_id=proposal_id, reason=str(exc))
    with transaction.atomic():
        proposal = Proposal.objects.select_for_update().get(pk=proposal_id)
        if proposal.state == ProposalState.APPROVED:
            proposal.mark_applied(at=now or clock.now(), branch=landed.branch,
                                  commit_sha=landed.commit_sha, pr_url=landed.pr_url,
                                  pr_command=landed.pr_command)
            proposal.save()
    return proposal


@transaction.atomic
def proposal_fail(*, proposal_id: int, reason: str) -> Proposal:
    proposal = Proposal.objects.select_for_update().get(pk=proposal_id)
    if proposal.state == ProposalState.APPROVED:
        proposal.mark_failed(reason=reason[:2000])
        proposal.save()
    return proposal
