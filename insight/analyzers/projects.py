"""Which project an event belongs to, from the project's path (the session's working
directory), and how a file is named in it.

The producer names a session's project after the last segment of its first `cwd`. A git
worktree that Claude Code made for a subagent (`<repo>/.claude/worktrees/<name>`) belongs
to the repository it was made from, and a scratch directory (`/tmp`, the home directory,
its Desktop or Downloads) is no project. A file inside the project is named
`<project>/<relative path>`; one outside it keeps its path (the home directory as `~`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from insight.analyzers.base import Event
from insight.analyzers.events import payload

_SEPARATORS = re.compile(r"[\\/]+")
_WORKTREE = re.compile(r"[\\/]\.(?:claude[\\/])?worktrees[\\/][^\\/]+")
_HOME = re.compile(r"^(?:/(?:Users|home)/[^/\\]+|/root|[A-Za-z]:[\\/]+Users[\\/]+[^\\/]+)"
                   r"(?=[\\/]|$)")
_ABSOLUTE = re.compile(r"^(?:[\\/~]|[A-Za-z]:)")
_SCRATCH = frozenset({"tmp", "temp", "private", "desktop", "downloads", "documents", "home",
                      "users"})


def _segments(path: str) -> list[str]:
    return [part for part in _SEPARATORS.split(path) if part]


def is_scratch(root: str) -> bool:
    """`/`, `/tmp`, `/private/tmp`, the home directory itself, `~/Desktop`: no project."""
    return all(part.casefold() in _SCRATCH for part in _segments(_HOME.sub("", root)))


@dataclass(frozen=True)
class Project:
    name: str
    root: str

    def file_name(self, path: str) -> tuple[str, bool]:
        """(name, inside the project) of a file path; ("", False) for the project itself."""
        path = _WORKTREE.sub("", path).rstrip("/\\")
        root = self.root.rstrip("/\\")
        if self.name and root:
            if path == root:
                return "", False
            if path.startswith(root) and path[len(root)] in "/\\":
                return f"{self.name}/{path[len(root) + 1:]}", True
        if not _ABSOLUTE.match(path):
            return (f"{self.name}/{path}", True) if self.name else (path, False)
        return _HOME.sub("~", path), False


@lru_cache(maxsize=4096)
def project_at(cwd: str, *, named: str = "") -> Project:
    """The project a working directory is in. `named` is the producer's name for the
    session's project (from its first cwd); a worktree's cwd names its repository instead.
    Kept per (cwd, named): every event of a session asks it again (a tenth of the analyzers'
    time)."""
    root = _WORKTREE.split(cwd, maxsplit=1)[0].rstrip("/\\")
    if root != cwd.rstrip("/\\"):
        return Project("", "") if is_scratch(root) else Project(_segments(root)[-1], root)
    if not named or is_scratch(named) or (cwd and is_scratch(cwd)):
        return Project("", "")
    found = re.match(rf"^(?:.*[\\/])?{re.escape(named)}(?=[\\/]|$)", root)
    return Project(named, found.group(0) if found else root)


def project_of(event: Event) -> Project:
    return project_at(str(payload(event).get("cwd") or ""), named=str(event.get("project") or ""))
