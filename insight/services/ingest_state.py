"""Writes of the producers' positions, inside the transaction that stores their events."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from django.db.models import F

from insight.file_state import FileState
from insight.models import GitRepository, SourceFile
from memory import clock

_UPDATED = [
    "rel_path", "kind", "device", "inode", "head_len", "head_sha", "size", "mtime_ns", "offset",
    "unterminated_tail", "cwd", "project", "session", "parent_session", "last_timestamp",
    "updated_at",
]


@dataclass
class FileMark:
    path: Path
    rel_path: str
    kind: str
    state: FileState


def source_files_save(*, marks: Sequence[FileMark]) -> None:
    """Upsert the read state of these files (one statement)."""
    now = clock.now()
    rows = [
        SourceFile(
            path=str(mark.path), rel_path=mark.rel_path, kind=mark.kind, updated_at=now,
            **mark.state.as_dict(),
        )
        for mark in marks
    ]
    SourceFile.objects.bulk_create(
        rows, update_conflicts=True, unique_fields=["path"], update_fields=_UPDATED
    )


def git_repository_tips_save(*, path: Path, name: str, tips: dict[str, str], commits: int) -> None:
    """Remember the tips reached by this ingestion, and count the commits it stored."""
    row, created = GitRepository.objects.get_or_create(
        path=str(path), defaults={"name": name, "tips": tips, "commits": commits,
                                  "updated_at": clock.now()},
    )
    if not created:
        GitRepository.objects.filter(pk=row.pk).update(
            name=name, tips=tips, commits=F("commits") + commits, updated_at=clock.now()
        )
