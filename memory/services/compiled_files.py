"""The current compiled truths on disk, under `settings.CORTEX_COMPILED_DIR`.

Each document is written to a temporary file in its folder, then renamed over the old one
(`os.replace`): a reader sees the old document or the new one, never half of either. No file
is written outside the directory: the path comes from `memory.compiled.paths` (safe
segments), folders are created one at a time, and a folder that is a symlink leading out
of the directory refuses the write (each folder checked once for a batch of documents). Not
fsynced: the database holds the versions, and `cortex rebuild compiled --all` writes every
file again.
"""

from __future__ import annotations

import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from memory.compiled.paths import compiled_relpath
from memory.errors import Refused

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Document:
    namespace: str
    slug: str
    markdown: str


def compiled_root() -> Path:
    return Path(settings.CORTEX_COMPILED_DIR)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _folder(root: Path, parts: tuple[str, ...]) -> Path:
    """`root/parts...`, created as needed, refused if any step resolves outside `root`."""
    current = root
    for part in parts:
        step = current / part
        if not step.exists() and not step.is_symlink():
            step.mkdir(exist_ok=True)
        resolved = step.resolve()
        if not _inside(resolved, root) or not resolved.is_dir():
            raise Refused("A compiled-truth folder leads outside the compiled directory.",
                          code="unsafe_path")
        current = resolved
    return current


def compiled_file_path(*, namespace: str, slug: str, root: Path | None = None) -> Path:
    """Where the document of this entity is (or would be) on disk."""
    base = (root or compiled_root())
    return base / Path(*compiled_relpath(namespace=namespace, slug=slug).parts)


def compiled_file_write(document: Document, *, root: Path | None = None) -> Path:
    """Write one document atomically; returns its path. Raises Refused on an unsafe path."""
    return _Writer(root).write(document)


class _Writer:
    """Documents written under one root, each folder checked (and created) once."""

    def __init__(self, root: Path | None) -> None:
        base = root or compiled_root()
        base.mkdir(parents=True, exist_ok=True)
        self.root = base.resolve()
        self.folders: dict[tuple[str, ...], Path] = {}

    def write(self, document: Document) -> Path:
        relative = compiled_relpath(namespace=document.namespace, slug=document.slug)
        parts = relative.parts[:-1]
        folder = self.folders.get(parts)
        if folder is None:
            folder = self.folders[parts] = _folder(self.root, parts)
        target = folder / relative.name
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".md")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(document.markdown)
            os.chmod(temporary, 0o644)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return target


def compiled_files_write(documents: list[Document], *, root: Path | None = None) -> int:
    """Write each document; one that cannot be written is logged and skipped (the database
    keeps its version). Returns how many were written."""
    try:
        writer = _Writer(root)
    except OSError as exc:
        logger.warning("compiled truths not written to disk: %s", exc)
        return 0
    written = 0
    for document in documents:
        try:
            writer.write(document)
            written += 1
        except (OSError, Refused) as exc:
            logger.warning("compiled truth of %s:%s not written to disk: %s",
                           document.namespace, document.slug, exc)
    return written
