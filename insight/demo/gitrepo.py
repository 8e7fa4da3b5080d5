"""A git repository with several authors, feature branches and merges, built with fast-import.

`git fast-import` takes the whole history as one stream, so 50,000 commits take
seconds. Deterministic: the same seed and size give the same shas.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

AUTHORS = [
    ("Alice Martin", "alice@example.com"),
    ("Bruno Dupont", "bruno@example.fr"),
    ("Chloé Bernard", "chloe@example.fr"),
    ("Dmitri Ivanov", "dmitri@example.com"),
    ("Emma Wilson", "emma@example.com"),
    ("Operator", "operator@example.com"),
]
KINDS = [("feat", 30), ("fix", 25), ("refactor", 12), ("test", 12), ("docs", 8),
         ("chore(deps)", 8), ("perf", 5)]
FILES = (
    [f"src/billing/{m}.py" for m in ("invoices", "payments", "taxes", "pdf", "api", "models")]
    + [f"tests/test_{m}.py" for m in ("invoices", "payments", "taxes", "api")]
    + ["pyproject.toml", "README.md", "docs/architecture.md", "src/billing/settings.py",
       "migrations/0001_initial.py", ".github/workflows/ci.yml"]
)
# A few files are hot (touched by most commits), most are lukewarm.
WEIGHTS = [14, 9, 5, 2, 10, 6, 8, 5, 3, 6, 3, 2, 1, 1, 2, 1]
SUBJECTS = ["handle {thing} rounding", "add {thing} endpoint", "speed up {thing} export",
            "validate {thing} input", "bump {thing}", "document {thing}", "split {thing} module"]
THINGS = ["invoice", "VAT", "refund", "PDF", "currency", "webhook", "customer", "httpx"]
GIT_START = datetime(2025, 9, 1, 9, 0, tzinfo=UTC)


def git_repo_write(path: Path, *, seed: int = 7, commits: int = 120,
                   start: datetime = GIT_START) -> int:
    """Create (or replace) a repository at `path` with `commits` commits, the first a little
    after `start`; returns the count."""
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    proc = subprocess.Popen(["git", "-C", str(path), "fast-import", "--quiet"],
                            stdin=subprocess.PIPE)
    assert proc.stdin is not None
    try:
        history = _History(proc.stdin, random.Random(seed), start=int(start.timestamp()))
        written = history.write(commits)
    finally:
        proc.stdin.close()
    if proc.wait() != 0:
        raise RuntimeError("git fast-import failed")
    subprocess.run(["git", "-C", str(path), "checkout", "-q", "-f", "main"], check=True)
    return written


class _History:
    def __init__(self, out: IO[bytes], rng: random.Random, *, start: int) -> None:
        self.out, self.rng = out, rng
        self.mark = 0
        self.when = start
        self.versions: dict[str, int] = {}
        self.main_tip = 0
        self.count = 0

    def write(self, commits: int) -> int:
        while self.count < commits:
            left = commits - self.count
            if left >= 4 and self.rng.random() < 0.25:
                self._feature_branch(min(left - 1, self.rng.randint(2, 5)))
            else:
                self.main_tip = self._commit("refs/heads/main", self.main_tip)
        self._branch_tip("refs/heads/release", self.main_tip)
        return self.count

    def _feature_branch(self, size: int) -> None:
        name = f"feature/{self.rng.choice(THINGS).lower()}-{self.count}"
        ref = f"refs/heads/{name}"
        tip = self.main_tip
        touched: list[str] = []
        for _ in range(size):
            tip = self._commit(ref, tip, touched=touched)
        if self.rng.random() < 0.85:  # most branches are merged, a few stay open
            self.main_tip = self._commit("refs/heads/main", self.main_tip, merge=tip,
                                         message=f"Merge branch '{name}'", files=touched)
            if self.rng.random() < 0.9:  # and most merged branches are deleted
                self.out.write(f"reset {ref}\n\n".encode())

    def _branch_tip(self, ref: str, mark: int) -> None:
        self.out.write(f"reset {ref}\nfrom :{mark}\n\n".encode())

    def _commit(self, ref: str, parent: int, *, merge: int = 0, message: str = "",
                files: list[str] | None = None, touched: list[str] | None = None) -> int:
        self.mark += 1
        self.count += 1
        self.when += self.rng.randint(60, 4 * 3600)
        name, email = self.rng.choice(AUTHORS)
        if not message:
            kind = self.rng.choices([k for k, _ in KINDS], weights=[w for _, w in KINDS])[0]
            subject = self.rng.choice(SUBJECTS).format(thing=self.rng.choice(THINGS))
            message = f"{kind}: {subject}\n\nRefs #{self.rng.randint(1, 400)}."
        if files is None:
            files = self.rng.choices(FILES, weights=WEIGHTS, k=self.rng.randint(1, 3))
        data = message.encode()
        lines = [f"commit {ref}", f"mark :{self.mark}",
                 f"author {name} <{email}> {self.when} +0000",
                 f"committer {name} <{email}> {self.when} +0000", f"data {len(data)}"]
        head = "\n".join(lines).encode() + b"\n" + data + b"\n"
        if parent:
            head += f"from :{parent}\n".encode()
        if merge:
            head += f"merge :{merge}\n".encode()
        self.out.write(head)
        for file in dict.fromkeys(files):
            self._modify(file)
            if touched is not None:
                touched.append(file)
        self.out.write(b"\n")
        return self.mark

    def _modify(self, file: str) -> None:
        version = self.versions.get(file, 0) + 1
        self.versions[file] = version
        lines = [f"# {file}"] + [f"value_{i} = {i * 7 % 13}" for i in range(12)]
        for i in range(version % 5 + 1):  # each version changes a few lines
            lines[(version + i * 3) % 12 + 1] = f"value_{i} = {version}"
        lines.append(f"VERSION = {version}")
        data = ("\n".join(lines) + "\n").encode()
        self.out.write(f"M 100644 inline {file}\ndata {len(data)}\n".encode() + data + b"\n")
