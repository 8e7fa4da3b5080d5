"""Registering the repositories Cortex may propose changes to."""

from __future__ import annotations

from pathlib import Path

from django.db import transaction

from actuation.models import PullRequestMode, TargetRepository
from actuation.selectors.repositories import repository_problem
from memory.config import config_get
from memory.errors import Invalid


@transaction.atomic
def repository_add(*, name: str, path: str, remote: str = "origin", branch: str = "main",
                   pr_mode: str = PullRequestMode.GH, memory_file: str = "") -> TargetRepository:
    """Registered (or updated when the name is known). The path must be a git repository
    whose branch exists."""
    timeout = float(config_get().actuation.command_timeout_seconds)
    where = Path(path).expanduser().resolve()
    if not name.strip():
        raise Invalid("A repository needs a name.", fields={"name": "required"})
    if pr_mode not in PullRequestMode.values:
        raise Invalid("Unknown pull request mode.", fields={"pr_mode": pr_mode})
    if problem := repository_problem(path=str(where), branch=branch, timeout=timeout):
        raise Invalid(problem, fields={"path": "not a git repository with that branch"})
    repository, _ = TargetRepository.objects.update_or_create(
        name=name.strip(), defaults={"path": str(where), "remote": remote,
                                     "default_branch": branch, "pr_mode": pr_mode,
                                     "memory_file": memory_file, "active": True})
    return repository
