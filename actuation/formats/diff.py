"""Unified diffs that `git apply` accepts, and the hashes that pin them."""

from __future__ import annotations

import difflib
import hashlib

NO_NEWLINE = "\\ No newline at end of file"


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _marked(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        if line.endswith("\n"):
            out.append(line)
        else:
            out.extend([line + "\n", NO_NEWLINE + "\n"])
    return out


def unified_diff(*, path: str, before: str | None, after: str) -> str:
    """The diff turning `before` (None: the file does not exist) into `after`."""
    header = [f"diff --git a/{path} b/{path}\n"]
    if before is None:
        header.append("new file mode 100644\n")
    old_name = "/dev/null" if before is None else f"a/{path}"
    body = list(difflib.unified_diff(_lines(before or ""), _lines(after), fromfile=old_name,
                                     tofile=f"b/{path}", n=3))
    if not body:
        return ""
    fixed: list[str] = []
    for line in body:
        fixed.extend(_marked([line]) if line[:1] in " +-" and not line.startswith(
            ("--- ", "+++ ")) else [line if line.endswith("\n") else line + "\n"])
    if before is None:
        fixed[2] = fixed[2].replace("@@ -1,0 ", "@@ -0,0 ", 1)
    return "".join(header + fixed)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def change_hash(*, repository: str, path: str, diff_type: str, added: list[str]) -> str:
    """What the change is, whatever the file around it: the same lines added to the same file
    of the same repository hash alike, so a rejected change is recognised when the file moved."""
    canonical = "\n".join([repository, path, diff_type, *(" ".join(a.split()) for a in added)])
    return sha256_text(canonical)


def added_lines(diff: str) -> list[str]:
    return [line[1:] for line in diff.splitlines()
            if line.startswith("+") and not line.startswith("+++ ")]
