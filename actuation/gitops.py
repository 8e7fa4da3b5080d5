"""git and gh, run as subprocesses with a timeout; never in the operator's working tree:
reads go through `git show <branch>:<path>`, writes through a worktree of Cortex's own."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

IDENTITY = {"GIT_AUTHOR_NAME": "Cortex", "GIT_AUTHOR_EMAIL": "cortex@localhost",
            "GIT_COMMITTER_NAME": "Cortex", "GIT_COMMITTER_EMAIL": "cortex@localhost"}


class GitFailed(RuntimeError):
    def __init__(self, args: Sequence[str], code: int, stderr: str) -> None:
        self.code, self.stderr = code, stderr.strip()
        super().__init__(f"{' '.join(args[:3])} exited {code}: {self.stderr[-500:]}")


def run(args: Sequence[str], *, cwd: Path, timeout: float, stdin: str | None = None,
        env: Mapping[str, str] | None = None) -> str:
    merged = {**os.environ, "GIT_TERMINAL_PROMPT": "0", **(env or {})}
    done = subprocess.run(list(args), cwd=cwd, input=stdin, capture_output=True, text=True,
                          timeout=timeout, env=merged, check=False)
    if done.returncode != 0:
        raise GitFailed(args, done.returncode, done.stderr or done.stdout)
    return done.stdout


def git(repo: Path, *args: str, timeout: float, stdin: str | None = None,
        env: Mapping[str, str] | None = None) -> str:
    return run(["git", *args], cwd=repo, timeout=timeout, stdin=stdin, env=env)


def file_at(repo: Path, *, ref: str, path: str, timeout: float) -> str | None:
    """The file's content at `ref`, None when it does not exist there."""
    try:
        return git(repo, "show", f"{ref}:{path}", timeout=timeout)
    except GitFailed:
        return None


def tip(repo: Path, *, ref: str, timeout: float) -> str:
    return git(repo, "rev-parse", "--verify", f"{ref}^{{commit}}", timeout=timeout).strip()


def gh_available(*, cwd: Path, timeout: float) -> bool:
    if shutil.which("gh") is None:
        return False
    try:
        run(["gh", "auth", "status"], cwd=cwd, timeout=timeout)
    except (GitFailed, OSError, subprocess.TimeoutExpired):
        return False
    return True
