"""A history copied across projects and months, as one operator's work looks (issue 29, the
spread corpus of bench/proposal_quality.py in small): three sessions of work, each done again
in two registered repositories and a project that is none, on three days of two months. A
copy is a session of its own (work done again); detection proposes at most the budget per
repository, and only what a reviewer reading the diff and its evidence would merge:

- the push session (opened by "push to github") ran `git status`, `git remote`, `git add`,
  `git push`;
- the set-up session was opened by a slash command, the agent at work before the operator
  typed "ok, now write the program ...": `conda create`, a Write, `conda activate`, `sleep 2
  && curl ...`, `yes | npm init`, `pnpm add zod`, `pip install`;
- the fix session (opened by "Please fix the bug in src/app.py.") edited before reading
  (and failed), read, edited again, then ran `npm test`.

What is mergeable, worked out from these scripts and the rules of docs/actuation.md: one
allowlist of the commands granted that do a bounded piece of work (`git status`, `git
remote`, `git add`, `git push`, `npm test`, `conda activate`; not `sleep` or `yes`, which
only serve the command after them (a line's grant is recorded under its first command), nor
`pnpm add`, `conda create`, `pip install`, which install packages); one pitfall line,
"Read a file before editing or writing it"; a skill named for "push to github" (its four
steps), and one for "fix the bug" made of what worked (`Read`, `Edit`, `npm test`: not the
failed Edit). Nothing from the set-up session's first prompt (not what it was opened for).
Four drafts: the three most evidenced proposed, the allowlist (granted in every session)
among them; the fourth waits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from unittest import mock

import pytest

from actuation.models import Proposal, TargetRepository
from actuation.services import proposals as proposal_services
from actuation.services.repositories import repository_add
from memory.config import config_get
from tests.actuation.repos import Repo, repo_make
from tests.actuation.sessions import Session, loop_run

# Three days of two months, within the detectors' window of the last day.
DAYS = (datetime(2026, 3, 5, 10, 0, tzinfo=UTC), datetime(2026, 4, 1, 14, 0, tzinfo=UTC),
        datetime(2026, 4, 27, 9, 0, tzinfo=UTC))
NOW = datetime(2026, 4, 28, 9, 0, tzinfo=UTC)
MERGEABLE_RULES = {"Bash(git status:*)", "Bash(git remote:*)", "Bash(git add:*)",
                   "Bash(git push:*)", "Bash(npm test:*)", "Bash(conda activate:*)"}


def _push(s: Session) -> None:
    s.w.prompt("push to github")
    s.tool("Bash", {"command": "git status"}, "On branch main\nnothing to commit")
    s.tool("Bash", {"command": "git remote -v"}, "origin\tgit@github.com:op/app.git (fetch)")
    s.tool("Bash", {"command": "git add -A"}, "")
    s.tool("Bash", {"command": "git push origin main"}, "Everything up-to-date")


def _set_up(s: Session) -> None:
    s.w.meta("<command-message>init is analyzing your codebase</command-message>\n"
             "<command-name>/init</command-name>")
    s.tool("Read", {"file_path": f"{s.cwd}/README.md"}, "     1\t# app\n")
    s.tool("Write", {"file_path": f"{s.cwd}/CLAUDE.md", "content": "# app\n"}, "File created")
    s.w.prompt("ok, now write the program using the instruction in README.md")
    s.tool("Bash", {"command": "conda create -n app311 python=3.11 -y"}, "done")
    s.tool("Write", {"file_path": f"{s.cwd}/main.py", "content": "print(1)\n"}, "File created")
    s.tool("Bash", {"command": "conda activate app311"}, "")
    s.tool("Bash", {"command": "sleep 2 && curl -s localhost:3000"}, "ok")
    s.tool("Bash", {"command": "yes | npm init"}, "Wrote to package.json")
    s.tool("Bash", {"command": "pnpm add zod"}, "Done in 1.2s")
    s.tool("Bash", {"command": "pip install requests"}, "Successfully installed requests")


def _fix(s: Session) -> None:
    s.w.prompt("Please fix the bug in src/app.py.")
    s.edit_before_read("src/app.py")
    s.tool("Bash", {"command": "npm test"}, "all tests passed")


def _write(root: Path, cwds: list[str]) -> None:
    seed = 1000
    for cwd in cwds:
        for day in DAYS:
            for hour, work in enumerate((_push, _set_up, _fix)):
                seed += 1
                session = Session(root, cwd=cwd, start=day + timedelta(hours=hour), seed=seed)
                work(session)
                session.close()


@pytest.fixture
def billing(tmp_path: Path, git_home: Path, target: TargetRepository) -> TargetRepository:
    other: Repo = repo_make(tmp_path, name="billing")
    return repository_add(name="billing", path=str(other.clone), remote="origin",
                          branch="main", pr_mode="branch")


@pytest.mark.django_db(transaction=True)
def test_a_history_copied_across_projects_and_months(
        target: TargetRepository, billing: TargetRepository, tmp_path: Path) -> None:
    budget = config_get().actuation.max_new_per_repository
    root = tmp_path / "projects"
    _write(root, [target.path, billing.path, str(tmp_path / "notes")])
    with mock.patch.object(proposal_services, "task_enqueue"):
        run = loop_run(root, now=NOW)
    assert run.status == "succeeded", run.error

    for repository in (target, billing):
        mine = Proposal.objects.filter(repository=repository)
        by_title = {p.file_path: p for p in mine}
        assert sorted(by_title) == [".claude/settings.json", ".claude/skills/fix-bug/SKILL.md",
                                    ".claude/skills/push-github/SKILL.md", "CLAUDE.md"]
        proposed = {p.file_path for p in mine.filter(state="proposed")}
        assert len(proposed) == budget and ".claude/settings.json" in proposed
        assert mine.filter(state="waiting").count() == len(by_title) - budget

        allow = by_title[".claude/settings.json"]
        assert {i.key for i in allow.items.all()} == MERGEABLE_RULES
        assert all(i.evidence["sessions"] == len(DAYS) for i in allow.items.all())

        pitfalls = by_title["CLAUDE.md"]
        (line,) = [i.line for i in pitfalls.items.all()]
        assert line.startswith("- Read a file before editing or writing it. Otherwise `Edit`")
        assert pitfalls.items.get().evidence["days"] == len(DAYS)

        push = by_title[".claude/skills/push-github/SKILL.md"]
        assert ("1. `git status` (Bash)\n+2. `git remote` (Bash)\n+3. `git add` (Bash)\n"
                "+4. `git push` (Bash)\n") in push.diff
        fix = by_title[".claude/skills/fix-bug/SKILL.md"]
        assert "1. `Read`\n+2. `Edit`\n+3. `npm test` (Bash)\n" in fix.diff
        for skill in (push, fix):
            assert len(skill.evidence["sessions"]) == len(DAYS)
