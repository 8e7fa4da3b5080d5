from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from actuation.models import TargetRepository
from actuation.services.repositories import repository_add
from memory.services.taxonomy import taxonomy_sync
from tests.actuation.repos import Repo, repo_make


@pytest.fixture
def git_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """git with a fresh HOME and global config: nothing of the machine's configuration."""
    home = tmp_path / "home"
    home.mkdir()
    config = home / ".gitconfig"
    config.write_text("[user]\n\tname = Operator\n\temail = operator@example.com\n"
                      "[init]\n\tdefaultBranch = main\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("PATH", "/usr/local/bin:/usr/bin:/bin")  # no gh: the branch mode
    return home


@pytest.fixture
def repo(tmp_path: Path, git_home: Path) -> Repo:
    return repo_make(tmp_path, name="shop")


@pytest.fixture
def target(db: None, repo: Repo) -> TargetRepository:
    taxonomy_sync()
    return repository_add(name="shop", path=str(repo.clone), remote="origin", branch="main",
                          pr_mode="branch")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout
