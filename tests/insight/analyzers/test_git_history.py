from __future__ import annotations

import pytest

from insight.analyzers.git_history import analyze
from tests.insight.analyzers.factories import branch, commit


@pytest.mark.parametrize(
    ("message", "files", "kind"),
    [
        ("feat(api): observations endpoint", ["memory/api.py"], "feat"),
        ("fix: off-by-one in the cursor", ["memory/selectors.py"], "fix"),
        ("refactor!: split the reader", ["insight/reader.py"], "refactor"),
        ("docs: explain decay", ["README.md"], "docs"),
        ("test: cover the parser", ["tests/test_parser.py"], "test"),
        ("chore: bump ruff", ["pyproject.toml"], "chore"),
        ("Fix the flaky test", ["a.py"], "fix"),
        ("Add the profile endpoint", ["a.py"], "feat"),
        ("Corrige le calcul de la demi-vie", ["memory/decay.py"], "fix"),
        ("Ajoute l'export CSV", ["export.py"], "feat"),
        ("Renomme le module de décroissance", ["decay.py"], "refactor"),
        ("Update the changelog and README", ["CHANGELOG.md", "README.md"], "chore"),
        ("Wording", ["docs/intro.md", "README.md"], "docs"),
        ("Plus de cas", ["tests/test_a.py", "src/a_test.go"], "test"),
        ("Misc", ["a.py"], "other"),
    ],
)
def test_commit_kinds(message: str, files: list[str], kind: str) -> None:
    (found,) = analyze([commit("abc123", message, [(f, 3, 1) for f in files])])
    assert found.payload["kind"] == kind


def test_a_merge_is_a_merge() -> None:
    (found,) = analyze([commit("m1", "Merge branch 'x'", [], parents=("p1", "p2"))])
    assert (found.payload["kind"], found.payload["is_merge"]) == ("merge", True)


def test_a_commit_names_its_author_and_repository_and_counts_its_lines() -> None:
    (found,) = analyze([commit("abc", "feat!: new api", [("a.py", 10, 2), ("b.py", 5, 0)],
                               author="Anya Kovač", repo="cortex")])
    assert found.category == "commit"
    assert found.target_namespace == "world:project"
    assert [(a["key"], a["role"]) for a in found.actors] == [
        ("world:person:anya-kovac", "author"), ("world:project:cortex", "repository")]
    assert (found.payload["added"], found.payload["removed"], found.payload["breaking"]) == (
        15, 2, True)
    assert found.payload["files"][0] == {"path": "a.py", "added": 10, "removed": 2}


def test_a_branch_is_project_activity() -> None:
    (found,) = analyze([branch("feature/x", "f00d")])
    assert (found.category, found.payload["kind"], found.payload["name"]) == (
        "project_activity", "branch", "feature/x")
