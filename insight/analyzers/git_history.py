"""git history -> `commit`: one observation per commit, its author (`world:person`) and
repository (`world:project`) as actors, its kind (feat, fix, refactor, docs, test, chore,
perf, style, build, ci, revert, merge, other) and the files it touched with their line
counts (how hot a file is over time is a query over these: `commit_hot_files`).
Branches -> `project_activity`."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.text import slugify

from insight.analyzers import namespaces
from insight.analyzers.base import Analyzer, Event, ObservationDraft
from insight.analyzers.events import draft, observed, payload
from insight.analyzers.text import excerpt

MAX_FILES = 200
_CONVENTIONAL = re.compile(
    r"^(?P<kind>feat|fix|refactor|docs|doc|test|tests|chore|perf|style|build|ci|revert)"
    r"(?:\((?P<scope>[^)]*)\))?(?P<breaking>!)?:",
    re.I,
)
# First words of non-conventional messages, English and French.
_FIRST_WORDS = {
    "fix": "fix", "fixed": "fix", "fixes": "fix", "bugfix": "fix", "hotfix": "fix",
    "corrige": "fix", "correction": "fix", "répare": "fix",
    "add": "feat", "added": "feat", "adds": "feat", "implement": "feat", "introduce": "feat",
    "support": "feat", "ajoute": "feat", "ajout": "feat", "implémente": "feat",
    "refactor": "refactor", "refactored": "refactor", "rename": "refactor", "move": "refactor",
    "extract": "refactor", "simplify": "refactor", "cleanup": "refactor", "clean": "refactor",
    "refactorise": "refactor", "renomme": "refactor", "déplace": "refactor",
    "simplifie": "refactor", "nettoie": "refactor",
    "docs": "docs", "doc": "docs", "document": "docs", "readme": "docs", "documente": "docs",
    "test": "test", "tests": "test", "teste": "test",
    "bump": "chore", "chore": "chore", "update": "chore", "upgrade": "chore", "release": "chore",
    "revert": "revert", "reverts": "revert",
}
_DOC_FILE = re.compile(r"(?:^|/)(?:docs?/|readme|changelog|license)|\.(?:md|rst|txt|adoc)$", re.I)
_TEST_FILE = re.compile(r"(?:^|/)(?:tests?|spec|__tests__)/|(?:^|/)test_|_test\.|\.(?:test|spec)\.")


def _files(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    files = data.get("files")
    return [f for f in files if isinstance(f, Mapping)] if isinstance(files, list) else []


def _by_files(paths: list[str]) -> str:
    if paths and all(_DOC_FILE.search(p) for p in paths):
        return "docs"
    if paths and all(_TEST_FILE.search(p) for p in paths):
        return "test"
    return "other"


def commit_kind(message: str, paths: list[str], *, merge: bool) -> tuple[str, str, bool]:
    """(kind, scope, breaking) of a commit."""
    if merge or message.startswith("Merge "):
        return "merge", "", False
    if found := _CONVENTIONAL.match(message):
        kind = {"doc": "docs", "tests": "test"}.get(found["kind"].lower(), found["kind"].lower())
        return kind, found["scope"] or "", bool(found["breaking"])
    first = re.split(r"[\s:,(]", message.strip().casefold(), maxsplit=1)[0]
    return _FIRST_WORDS.get(first) or _by_files(paths), "", False


def _commit(event: Event) -> ObservationDraft:
    data = payload(event)
    repo = str(data.get("repo") or event.get("project") or "")
    author = str(data.get("author") or "")
    files = _files(data)
    message = str(data.get("message") or "")
    merge = bool(data.get("is_merge")) or len(data.get("parents") or []) > 1
    kind, scope, breaking = commit_kind(message, [str(f.get("path")) for f in files], merge=merge)
    person = {"name": author, "key": f"world:person:{slugify(author)}", "role": "author"}
    if data.get("email"):
        person["email"] = str(data["email"])
    return draft(
        event,
        category="commit",
        target_namespace=namespaces.PROJECT,
        topic=excerpt(message.splitlines()[0] if message else kind),
        actors=(person, {"name": repo, "key": f"world:project:{slugify(repo)}",
                         "role": "repository"}),
        payload={
            "sha": str(data.get("sha") or event.get("source_id")), "repo": repo, "kind": kind,
            "scope": scope, "breaking": breaking, "author": author, "is_merge": merge,
            "files": [{"path": str(f.get("path")), "added": f.get("added"),
                       "removed": f.get("removed")} for f in files[:MAX_FILES]],
            "files_count": len(files),
            "added": sum(int(f.get("added") or 0) for f in files),
            "removed": sum(int(f.get("removed") or 0) for f in files),
        },
    )


def _branch(event: Event) -> ObservationDraft:
    data = payload(event)
    repo, name = str(data.get("repo") or event.get("project") or ""), str(data.get("name") or "")
    return draft(
        event,
        category="project_activity",
        target_namespace=namespaces.PROJECT,
        topic=f"branch {name}",
        actors=({"name": repo, "key": f"world:project:{slugify(repo)}", "role": "project"},),
        payload={"project": repo, "kind": "branch", "name": name, "action": "exists",
                 "tip": str(data.get("tip") or "")},
    )


def analyze(events: Sequence[Event]) -> list[ObservationDraft]:
    drafts = []
    for event in observed(events):
        if event.get("subtype") == "commit":
            drafts.append(_commit(event))
        elif event.get("subtype") == "branch":
            drafts.append(_branch(event))
    return drafts


ANALYZER = Analyzer(name="git_history", sources=("git",), analyze=analyze)
