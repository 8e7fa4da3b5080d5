"""Editing a user's JSON config file (Claude Code's, Claude Desktop's) as installers do: show
the unified diff first, write only when confirmed (or --yes), atomically. Django-free: the
hook installer imports it too."""

from __future__ import annotations

import difflib
import json
import os
import sys
from pathlib import Path
from typing import Any


def json_render(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def diff_apply(*, path: Path, before: str, after: str, label: str, yes: bool) -> int:
    """Print the diff from `before` to `after`; write `after` to `path` if confirmed (0),
    else leave it (1)."""
    sys.stdout.writelines(difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True),
        fromfile=f"{path} (current)", tofile=f"{path} ({label})",
    ))
    if not yes and not sys.stdin.isatty():
        print("Nothing written: standard input is not a terminal, so there is no one to ask "
              "(use --yes to apply without asking).")
        return 1
    if not (yes or _confirmed()):
        print("Nothing written (use --yes to apply without asking).")
        return 1
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(after, encoding="utf-8")
    os.replace(tmp, path)
    print(f"Wrote {path}.")
    return 0


def _confirmed() -> bool:
    if not sys.stdin.isatty():
        return False
    return input("Apply? [y/N] ").strip().lower() in ("y", "yes")
