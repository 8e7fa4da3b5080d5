"""Which registered repository a project seen in the events is: by path, then by name."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from actuation import gitops
from actuation.models import TargetRepository


def repository_list(*, active_only: bool = True) -> list[TargetRepository]:
    rows = TargetRepository.objects.all()
    if active_only:
        rows = rows.filter(active=True)
    return list(rows.order_by("name"))


def _normal(path: str) -> str:
    return str(PurePosixPath(path.replace("\\", "/"))).rstrip("/")


def repository_match(*, repositories: Sequence[TargetRepository], project: str,
                     cwd: str) -> TargetRepository | None:
    """The repository whose path holds `cwd` (the deepest), else the one named `project`."""
    if cwd:
        here = _normal(cwd)
        holding = [r for r in repositories
                   if here == _normal(r.path) or here.startswith(_normal(r.path) + "/")]
        if holding:
            return max(holding, key=lambda r: len(_normal(r.path)))
    if project:
        for repository in repositories:
            if project in (repository.name, PurePosixPath(_normal(repository.path)).name):
                return repository
    return None


def repository_projects(*, repository: TargetRepository) -> list[str]:
    """The project names events of this repository carry."""
    return sorted({repository.name, PurePosixPath(_normal(repository.path)).name})


def repository_problem(*, path: str, branch: str, timeout: float) -> str | None:
    """Why `path` cannot be a target repository with base `branch` (None: it can)."""
    try:
        gitops.tip(Path(path).expanduser(), ref=branch, timeout=timeout)
    except (gitops.GitFailed, OSError):
        return f"{path} is not a git repository with a branch {branch!r}"
    return None
