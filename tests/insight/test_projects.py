"""Project names come from the project path: a worktree belongs to its repository, a scratch
directory is no project, a file is named in its project or by its own path."""

from __future__ import annotations

import pytest

from insight.analyzers.projects import project_at
from insight.producers.claude_code_records import project_of


@pytest.mark.parametrize(("cwd", "named", "project"), [
    ("/Users/dain/workspace/JSSoundRecorder", "JSSoundRecorder", "JSSoundRecorder"),
    ("/srv/repo/.claude/worktrees/agent-ab1e6e14", "agent-ab1e6e14", "repo"),
    ("/srv/repo/.worktrees/feature-x", "feature-x", "repo"),
    ("/path/to/Demo/todo-app/types", "Demo", "Demo"),
    ("/tmp", "tmp", ""), ("/private/tmp", "tmp", ""), ("/Users/dain", "dain", ""),
    ("/home/op/Desktop", "Desktop", ""), ("", "tmp", ""), ("", "billing", "billing"),
])
def test_the_project_of_a_working_directory(cwd: str, named: str, project: str) -> None:
    assert project_at(cwd, named=named).name == project


def test_a_file_is_named_in_its_project_or_by_its_own_path() -> None:
    demo = project_at("/path/to/Demo/todo-app", named="Demo")
    assert demo.file_name("/path/to/Demo/components/A.tsx") == ("Demo/components/A.tsx", True)
    assert demo.file_name("src/app.ts") == ("Demo/src/app.ts", True)
    assert demo.file_name("/Users/dain/.claude/CLAUDE.md") == ("~/.claude/CLAUDE.md", False)
    assert demo.file_name("/path/to/Demo") == ("", False)
    repo = project_at("/srv/repo/.claude/worktrees/agent-ab1e6e14", named="agent-ab1e6e14")
    assert repo.file_name("/srv/repo/.claude/worktrees/agent-ab1e6e14/work/notes.md") == (
        "repo/work/notes.md", True)


def test_the_producer_names_a_worktree_after_its_repository() -> None:
    assert project_of("/srv/repo/.claude/worktrees/agent-ab1e6e14") == "repo"
    assert project_of("/srv/repo/sub") == "sub"
