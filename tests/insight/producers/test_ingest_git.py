"""`cortex ingest git`: a real repository made here, incremental by tips, idempotent by sha."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from insight.models import GitRepository
from memory.models.events import MemoryEvent

from .helpers import ingest

pytestmark = pytest.mark.django_db


def _git(repo: Path, *args: str, author: str = "Alice Martin") -> str:
    email = author.split()[0].lower() + "@example.com"
    env = {**os.environ, "GIT_AUTHOR_NAME": author, "GIT_AUTHOR_EMAIL": email,
           "GIT_COMMITTER_NAME": author, "GIT_COMMITTER_EMAIL": email,
           "GIT_AUTHOR_DATE": "2026-02-01T10:00:00+01:00",
           "GIT_COMMITTER_DATE": "2026-02-01T10:00:00+01:00"}
    out = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                         env=env)
    return out.stdout.decode().strip()


def _commit(repo: Path, path: str, text: str, message: str, author: str = "Alice Martin") -> str:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)
    _git(repo, "add", path)
    _git(repo, "commit", "-q", "-m", message, author=author)
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "shop"
    path.mkdir()
    _git(path, "init", "-q", "-b", "main")
    _commit(path, "app.py", "a\nb\n", "feat: start")
    _git(path, "checkout", "-q", "-b", "feature/tax")
    _commit(path, "tax.py", "x\ny\nz\n", "feat: tax", author="Chloé Bernard")
    (path / "logo.bin").write_bytes(b"\0\1\2")
    _git(path, "add", "logo.bin")
    _git(path, "commit", "-q", "-m", "add logo", author="Chloé Bernard")
    _git(path, "checkout", "-q", "main")
    _commit(path, "app.py", "a\nB\nc\n", "fix: app\n\nLonger body.")
    _git(path, "merge", "-q", "--no-ff", "feature/tax", "-m", "Merge branch 'feature/tax'")
    return path


def _commits() -> dict[str, MemoryEvent]:
    return {e.payload["message"].splitlines()[0]: e
            for e in MemoryEvent.objects.filter(source="git", subtype="commit")}


def test_commits_with_files_authors_merges_and_branches(repo: Path) -> None:
    summary = ingest("git", str(repo))
    assert summary["records"] == 5
    commits = _commits()
    assert set(commits) == {"feat: start", "feat: tax", "add logo", "fix: app",
                            "Merge branch 'feature/tax'"}
    fix = commits["fix: app"]
    assert fix.payload["files"] == [{"path": "app.py", "added": 2, "removed": 1}]
    assert fix.payload["message"] == "fix: app\n\nLonger body."
    assert fix.actor == "Alice Martin" and fix.project == "shop"
    assert fix.payload["email"] == "alice@example.com"
    assert fix.payload["authored_at"] == "2026-02-01T10:00:00+01:00"
    assert fix.correlation_parent == commits["feat: start"].source_id
    assert commits["add logo"].payload["files"] == [
        {"path": "logo.bin", "added": None, "removed": None}]
    assert commits["feat: tax"].actor == "Chloé Bernard"
    merge = commits["Merge branch 'feature/tax'"]
    assert merge.payload["is_merge"] is True and len(merge.payload["parents"]) == 2
    assert merge.correlation_session == "shop" and merge.correlation_thread == "main"
    branches = MemoryEvent.objects.filter(source="git", subtype="branch")
    assert sorted(b.payload["name"] for b in branches) == ["feature/tax", "main"]
    assert summary["events_stored"] == 7


def test_a_second_run_reads_only_new_commits(repo: Path) -> None:
    _git(repo, "tag", "v1")
    ingest("git", str(repo))
    assert not MemoryEvent.objects.filter(source="git", source_id__contains="tags/").exists()
    assert ingest("git", str(repo))["records"] == 0
    sha = _commit(repo, "app.py", "new\n", "docs: more")
    summary = ingest("git", str(repo))
    assert summary["records"] == 1
    assert summary["events_stored"] == 2  # the commit and main's new tip
    assert MemoryEvent.objects.filter(source="git", source_id=sha).exists()
    assert GitRepository.objects.get().tips["refs/heads/main"] == sha


def test_forgotten_tips_read_everything_again_without_duplicates(repo: Path) -> None:
    first = ingest("git", str(repo))
    GitRepository.objects.all().delete()
    again = ingest("git", str(repo))
    assert again["records"] == 5
    assert again["events_stored"] == 0 and again["duplicates"] == first["events_stored"]


def test_a_rewritten_history_is_handled(repo: Path) -> None:
    ingest("git", str(repo))
    _git(repo, "branch", "-D", "feature/tax")
    _git(repo, "reset", "-q", "--hard", "HEAD~1")
    _git(repo, "reflog", "expire", "--expire=now", "--all")
    _git(repo, "gc", "-q", "--prune=now")
    sha = _commit(repo, "other.py", "1\n", "feat: other")
    summary = ingest("git", str(repo))
    # The remembered tips are gone: the history is read again, the known commits skipped.
    assert (summary["records"], summary["duplicates"]) == (3, 2)
    assert MemoryEvent.objects.filter(source="git", source_id=sha).exists()
    assert ingest("git", str(repo))["records"] == 0


def test_the_generated_demo_repository_ingests(tmp_path: Path) -> None:
    from insight.demo.gitrepo import git_repo_write

    written = git_repo_write(tmp_path / "billing-api", seed=3, commits=150)
    summary = ingest("git", str(tmp_path / "billing-api"))
    assert summary["records"] == written == 150
    commits = MemoryEvent.objects.filter(source="git", subtype="commit")
    assert any(payload["is_merge"] for payload in commits.values_list("payload", flat=True))
    assert len(set(commits.values_list("actor", flat=True))) >= 5


def test_stopping_early_leaves_no_error_and_no_git_process(repo: Path) -> None:
    from insight.producers.git_log import git_commits

    commits = git_commits(repo)
    assert next(commits)["sha"]
    commits.close()  # must not raise (git is killed, not left writing to a closed pipe)
