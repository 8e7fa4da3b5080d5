"""actuation's end of `cortex demo` (registered from `ActuationConfig.ready()`): the demo's
git repository becomes a target repository, its remote a local bare repository; the
detectors run as of the end of the corpus, and the proposals are listed with the command
that approves one (its commit then lands on a branch of the bare remote)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from actuation import gitops
from actuation.selectors.outcomes import sessions_last_prompt
from actuation.selectors.proposals import proposal_list
from actuation.services.detection import detection_run
from actuation.services.repositories import repository_add
from insight.demo.finishers import DemoContext, DemoSection
from memory.config import config_get

REMOTE = "origin"


def demo_remote(repo: Path, *, timeout: float) -> Path:
    """A bare repository beside the demo's, as its `origin`, holding its main branch."""
    bare = repo.parent / f"{repo.name}.git"
    if not bare.exists():
        gitops.git(repo.parent, "init", "-q", "--bare", "-b", "main", str(bare), timeout=timeout)
    remotes = gitops.git(repo, "remote", timeout=timeout).split()
    if REMOTE not in remotes:
        gitops.git(repo, "remote", "add", REMOTE, str(bare), timeout=timeout)
    gitops.git(repo, "push", "-q", "--force", REMOTE, "main", timeout=timeout)
    return bare


def demo_proposals(context: DemoContext) -> DemoSection:
    section = DemoSection(title="Proposals (Layer 4, the approval queue)",
                          columns=["id", "type", "state", "title"])
    if context.repo is None:
        section.notes.append("No git repository in this corpus: nothing to propose to.")
        return section
    timeout = float(config_get().actuation.command_timeout_seconds)
    bare = demo_remote(context.repo, timeout=timeout)
    repository = repository_add(name=context.repo.name, path=str(context.repo), remote=REMOTE,
                                branch="main", pr_mode="branch")
    last = sessions_last_prompt(repository=repository)
    as_of = last + timedelta(hours=1) if last else context.as_of
    detection_run(now=as_of)
    for proposal in proposal_list(repository=repository.name):
        kind = proposal.diff_type + (" (capability grant)" if proposal.diff_type == "allowlist"
                                     else "")
        section.rows.append([proposal.pk, kind, proposal.state, proposal.title])
    section.notes += [
        f"Detected as of {as_of:%Y-%m-%d %H:%M} (the end of the corpus), for {repository.name}.",
        "Review one: cortex actuate show ID; approve it: cortex actuate approve ID --wait",
        f"(a commit lands on branch cortex/ID-... of {bare}).",
    ]
    return section
