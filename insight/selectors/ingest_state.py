"""Reads of the producers' positions in their sources."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from insight.file_state import FileState
from insight.models import GitRepository, SourceFile

_STATE_FIELDS = [
    "path", "device", "inode", "head_len", "head_sha", "size", "offset", "unterminated_tail", "cwd",
    "project", "session", "parent_session", "last_timestamp",
]


def source_file_states_get(*, paths: Iterable[Path]) -> dict[str, FileState]:
    """The remembered read state of each of these files that was read before."""
    wanted = [str(p) for p in paths]
    states: dict[str, FileState] = {}
    for start in range(0, len(wanted), 5000):
        rows = SourceFile.objects.filter(path__in=wanted[start:start + 5000]).values(*_STATE_FIELDS)
        for row in rows:
            path = row.pop("path")
            states[path] = FileState.from_dict(row)
    return states


def git_repository_tips_get(*, path: Path) -> dict[str, str]:
    """The ref tips seen when this repository was last ingested (empty: never)."""
    row = GitRepository.objects.filter(path=str(path)).values_list("tips", flat=True).first()
    return dict(row or {})
