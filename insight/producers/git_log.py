"""A repository's history from `git log` through a subprocess, streamed record by record.

Fields are separated with \\x1f and commits with \\x1e; `-z` makes numstat paths
verbatim (no quoting). Django-free.
"""

from __future__ import annotations

import subprocess
from collections.abc import Generator, Iterable
from pathlib import Path
from typing import Any

SOURCE = "git"
MAX_FILES = 5000  # a vendoring commit can touch 100k files; keep the payload bounded
_FORMAT = "%x1e" + "%x1f".join(["%H", "%P", "%an", "%ae", "%aI", "%cn", "%ce", "%cI", "%S", "%B"])
_FORMAT += "%x1f"
CHUNK_BYTES = 1 << 20


def repo_name(repo: Path) -> str:
    name = repo.resolve().name
    return name[:-4] if name.endswith(".git") and len(name) > 4 else name


def git_refs(repo: Path) -> dict[str, str]:
    """Every branch (local and remote-tracking) and tag, to the commit it points at."""
    fmt = "--format=%(refname)%00%(objectname)%00%(*objectname)"
    out = subprocess.run(
        ["git", "-C", str(repo), "for-each-ref", fmt, "refs/heads", "refs/remotes", "refs/tags"],
        check=True, capture_output=True,
    ).stdout.decode("utf-8", "replace")
    refs: dict[str, str] = {}
    for line in out.splitlines():
        name, obj, peeled = line.split("\0")
        if not name.endswith("/HEAD"):
            refs[name] = peeled or obj  # an annotated tag points at its commit
    return refs


def existing_commits(repo: Path, shas: Iterable[str]) -> list[str]:
    """The shas still in the repository (a force-push and gc can drop a remembered tip)."""
    wanted = "".join(f"{sha}\n" for sha in shas)
    if not wanted:
        return []
    out = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch-check=%(objectname) %(objecttype)"],
        input=wanted.encode(), check=True, capture_output=True,
    ).stdout.decode()
    return [parts[0] for parts in (line.split() for line in out.splitlines())
            if len(parts) == 2 and parts[1] == "commit"]


def git_commits(
    repo: Path, *, exclude: Iterable[str] = ()
) -> Generator[dict[str, Any], None, None]:
    """Commits reachable from any ref and not from `exclude`, newest first."""
    cmd = ["git", "-C", str(repo), "log", "--all", "--source", "--numstat", "--no-renames",
           "-z", f"--format={_FORMAT}", "--stdin"]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(f"^{sha}\n" for sha in exclude).encode())
    proc.stdin.close()
    finished = False
    try:
        tail = b""
        while chunk := proc.stdout.read(CHUNK_BYTES):
            records = (tail + chunk).split(b"\x1e")
            tail = records.pop()
            for raw in records:
                if raw:
                    yield _parse_commit(raw.decode("utf-8", "replace"))
        if tail:
            yield _parse_commit(tail.decode("utf-8", "replace"))
        finished = True
    finally:
        proc.stdout.close()
        if not finished:  # the caller stopped early: git is not needed any more
            proc.kill()
        if proc.wait() != 0 and finished:
            raise subprocess.CalledProcessError(proc.returncode, cmd)


def _parse_commit(text: str) -> dict[str, Any]:
    sha, parents, an, ae, a_at, cn, ce, c_at, source, remainder = text.split("\x1f", 9)
    message, _, numstat = remainder.rpartition("\x1f")
    files = _numstat(numstat)
    commit: dict[str, Any] = {
        "sha": sha,
        "author": an,
        "email": ae,
        "committer": cn,
        "committer_email": ce,
        "authored_at": a_at,
        "committed_at": c_at,
        "message": message.rstrip("\n"),
        "parents": parents.split(),
        "files": files[:MAX_FILES],
        "ref": source,
    }
    if len(files) > MAX_FILES:
        commit["files_total"] = len(files)
    return commit


def _numstat(text: str) -> list[dict[str, Any]]:
    files = []
    for entry in text.split("\0"):
        entry = entry.strip("\n")
        parts = entry.split("\t", 2)
        if len(parts) != 3:
            continue
        added, removed, path = parts
        files.append({
            "path": path,
            "added": int(added) if added.isdigit() else None,
            "removed": int(removed) if removed.isdigit() else None,
        })
    return files


def branch_name(ref: str) -> str:
    for prefix in ("refs/heads/", "refs/remotes/"):
        if ref.startswith(prefix):
            return ref[len(prefix):]
    return ""


def commit_event(commit: dict[str, Any], *, repo: str) -> dict[str, Any]:
    parents = commit["parents"]
    payload = {k: v for k, v in commit.items() if k != "ref"}
    payload.update(repo=repo, is_merge=len(parents) > 1)
    return {
        "source_id": commit["sha"],
        "type": SOURCE,
        "subtype": "commit",
        "occurred_at": commit["authored_at"],
        "actor": commit["author"],
        "project": repo,
        "correlation": {
            "session": repo,
            "thread": branch_name(commit["ref"]),
            "parent": parents[0] if parents else "",
        },
        "payload": payload,
    }


def branch_event(*, repo: str, ref: str, tip: str, occurred_at: str) -> dict[str, Any]:
    name = branch_name(ref) or ref.removeprefix("refs/")
    return {
        "source_id": f"branch:{repo}:{name}:{tip}",
        "type": SOURCE,
        "subtype": "branch",
        "occurred_at": occurred_at,
        "actor": "",
        "project": repo,
        "correlation": {"session": repo, "thread": name, "parent": ""},
        "payload": {"repo": repo, "name": name, "tip": tip, "ref": ref},
    }
