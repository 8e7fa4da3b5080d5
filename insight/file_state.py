"""Where a producer stands in one transcript file (its identity and the offset read to).

A plain value, persisted by its caller: a database row for `cortex ingest`
(insight.services.ingest_state), a small file for the hooks (insight.hooks.files)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass
class FileState:
    device: int = 0
    inode: int = 0
    head_len: int = 0
    head_sha: str = ""
    size: int = 0  # the file's size when last opened
    mtime_ns: int = 0  # its modification time then (0: unknown, the file is opened)
    offset: int = 0
    unterminated_tail: bool = False  # the last line read had no newline (yet)
    cwd: str = ""
    project: str = ""
    session: str = ""
    parent_session: str = ""
    last_timestamp: str = ""

    def as_dict(self) -> dict[str, Any]:
        # Every field is a scalar: no deep copy (dataclasses.asdict's was most of an
        # unchanged re-run's time, twice a file).
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FileState:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})
