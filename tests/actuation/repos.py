"""A bare repository as the remote and the operator's clone of it, for applying tests."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

OPERATOR_CLAUDE_MD = "# Shop\n\nThe operator's own notes: run `make test` before pushing.\n"


@dataclasses.dataclass(frozen=True)
class Repo:
    remote: Path
    clone: Path


def run_git(cwd: Path, *args: str, input_text: str | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True, input=input_text).stdout


def repo_make(root: Path, *, name: str, claude_md: str | None = OPERATOR_CLAUDE_MD) -> Repo:
    remote, clone = root / f"{name}.git", root / name
    run_git(root, "init", "-q", "--bare", "-b", "main", str(remote))
    run_git(root, "init", "-q", "-b", "main", str(clone))
    (clone / "README.md").write_text(f"# {name}\n")
    if claude_md is not None:
        (clone / "CLAUDE.md").write_text(claude_md)
    run_git(clone, "add", "-A")
    run_git(clone, "commit", "-q", "-m", "initial")
    run_git(clone, "remote", "add", "origin", str(remote))
    run_git(clone, "push", "-q", "origin", "main")
    return Repo(remote=remote, clone=clone)


def commit_file(repo: Repo, path: str, text: str, message: str = "operator edit") -> None:
    target = repo.clone / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    run_git(repo.clone, "add", path)
    run_git(repo.clone, "commit", "-q", "-m", message)


def snapshot(repo: Repo) -> tuple[str, str, str]:
    """The operator's HEAD, status (working tree and index) and index content."""
    head = run_git(repo.clone, "rev-parse", "HEAD")
    status = run_git(repo.clone, "status", "--porcelain=v1", "--untracked-files=all")
    index = run_git(repo.clone, "ls-files", "-s", "--debug")
    return head, status, index
