"""A key that is not a safe path never writes outside the compiled directory."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory.compiled.paths import compiled_relpath, path_segment
from memory.errors import Refused
from memory.models import Namespace
from memory.services.compiled_files import Document, compiled_file_write, compiled_files_write
from memory.services.compiled_truth import compiled_truth_rebuild
from memory.services.entities import entity_create

NOW = datetime(2026, 3, 1, 3, 0, tzinfo=UTC)
HOSTILE = ["..", ".", "../../etc/passwd", "/etc/passwd", "a/../../b", "a\\..\\b", "nul\x00byte",
           "~root", ".hidden", "", "x" * 400, "é/è", "C:\\Windows", "%2e%2e"]


def _files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


@pytest.mark.parametrize("slug", HOSTILE)
def test_a_segment_is_one_plain_file_name(slug: str) -> None:
    segment = path_segment(slug)
    assert segment and "/" not in segment and "\\" not in segment and "\x00" not in segment
    assert not segment.startswith(".") and len(segment.encode()) <= 255
    relative = compiled_relpath(namespace="world:project", slug=slug)
    assert relative.parts[:2] == ("world", "project") and len(relative.parts) == 3
    assert not relative.is_absolute() and ".." not in relative.parts


def test_distinct_names_stay_distinct() -> None:
    names = ["a/b", "a%2Fb", "a:b", "a_b", ".a", "%2Ea"]
    assert len({path_segment(n) for n in names}) == len(names)


@pytest.mark.parametrize("slug", HOSTILE)
def test_hostile_keys_are_written_inside_the_directory(tmp_path: Path, slug: str) -> None:
    root = tmp_path / "compiled"
    for namespace in ("world:project", "..:..:tmp", ":/etc:", "\x00"):
        written = compiled_file_write(Document(namespace=namespace, slug=slug, markdown="x"),
                                      root=root)
        assert root.resolve() in written.resolve().parents
    assert all(root.resolve() in p.resolve().parents for p in _files(tmp_path))


def test_a_symlinked_folder_leading_outside_refuses_the_write(tmp_path: Path) -> None:
    root, outside = tmp_path / "compiled", tmp_path / "outside"
    (root / "world").mkdir(parents=True)
    outside.mkdir()
    os.symlink(outside, root / "world" / "project")
    with pytest.raises(Refused):
        compiled_file_write(Document(namespace="world:project", slug="x", markdown="x"),
                            root=root)
    os.symlink(outside, root / "agent")
    with pytest.raises(Refused):
        compiled_file_write(Document(namespace="agent:claude-code:rc", slug="x", markdown="x"),
                            root=root)
    assert list(outside.rglob("*")) == []


def test_a_symlink_in_place_of_the_file_is_replaced_not_followed(tmp_path: Path) -> None:
    root, outside = tmp_path / "compiled", tmp_path / "victim.txt"
    outside.write_text("keep me")
    (root / "world" / "project").mkdir(parents=True)
    os.symlink(outside, root / "world" / "project" / "x.md")
    compiled_file_write(Document(namespace="world:project", slug="x", markdown="new"),
                        root=root)
    assert outside.read_text() == "keep me"
    assert (root / "world" / "project" / "x.md").read_text() == "new"


@pytest.mark.django_db
def test_an_entity_with_a_hostile_slug_is_rebuilt_inside(synced: None, compiled_dir: Path) -> None:
    namespace = Namespace.objects.get(path="world:project")
    for slug in ("../../../../escape", "/abs/olute", "..", "a\\b"):
        entity = entity_create(namespace=namespace, slug=slug, now=NOW)
        compiled_truth_rebuild(key=entity.key, now=NOW)
    files = _files(compiled_dir.parent)
    assert len(files) == 4
    assert all(compiled_dir.resolve() in p.resolve().parents for p in files)


def test_a_batch_is_written_when_its_folders_are_shared_and_refused_when_one_leads_out(
        tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "compiled"
    (root / "world").mkdir(parents=True)
    (root / "world" / "artifact").symlink_to(outside)
    documents = [Document(namespace="world:project", slug=f"p{n}", markdown=str(n))
                 for n in range(3)]
    documents.append(Document(namespace="world:artifact", slug="a", markdown="a"))
    assert compiled_files_write(documents, root=root) == 3
    assert sorted(p.name for p in (root / "world" / "project").iterdir()) == [
        "p0.md", "p1.md", "p2.md"]
    assert (root / "world" / "project" / "p2.md").read_text() == "2"
    assert not any(outside.iterdir())
