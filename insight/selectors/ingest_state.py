"""Reads of the producers' positions in their sources."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from pathlib import Path

from insight.file_state import FileState
from insight.models import GitRepository, SourceFile

# FileState's fields in their order (a row builds one positionally).
_STATE_FIELDS = ["path", *(f.name for f in fields(FileState))]


def source_file_states_get(*, paths: Iterable[Path]) -> dict[str, FileState]:
    """The remembered read state of each of these files that was read before."""
    wanted = [str(p) for p in paths]
    states: dict[str, FileState] = {}
    for start in range(0, len(wanted), 5000):
        # Rows, unordered (the model orders by path: a sort of every path for nothing).
        rows = (SourceFile.objects.filter(path__in=wanted[start:start + 5000]).order_by()
                .values_list(*_STATE_FIELDS))
        for path, *state in rows:
            states[path] = FileState(*state)
    return states


def git_repository_tips_get(*, path: Path) -> dict[str, str]:
    """The ref tips seen when this repository was last ingested (empty: never)."""
    row = GitRepository.objects.filter(path=str(path)).values_list("tips", flat=True).first()
    return dict(row or {})
