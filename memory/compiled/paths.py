"""Where an entity's document lives under the compiled directory: `<namespace path>/<slug>.md`
(namespace `a:b:c` gives folders a/b/c). Every segment is made a safe file name: only
letters, digits, `_`, `-` and inner dots stay; anything else (`/`, `\\`, NUL, `:`, a leading
dot, so `.` and `..` too) is percent-encoded; an overlong one is cut and suffixed with a
hash. Symlinks are the writer's concern (`memory.services.compiled_files`)."""

from __future__ import annotations

import hashlib
from pathlib import PurePosixPath

SUFFIX = ".md"
MAX_SEGMENT_BYTES = 200
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


def _encode(char: str) -> str:
    return "".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))


def path_segment(name: str) -> str:
    """A file name that is never empty, `.`, `..`, hidden, or a path."""
    if not name:
        return "%00"
    out = [_encode(ch) if ch not in _SAFE or (i == 0 and ch == ".") else ch
           for i, ch in enumerate(name)]
    segment = "".join(out)
    if len(segment.encode()) > MAX_SEGMENT_BYTES:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        segment = f"{segment[: MAX_SEGMENT_BYTES - 17]}~{digest}"
    return segment


def compiled_relpath(*, namespace: str, slug: str) -> PurePosixPath:
    """The document's path relative to the compiled directory."""
    folders = [path_segment(part) for part in namespace.split(":")]
    return PurePosixPath(*folders, path_segment(slug) + SUFFIX)
