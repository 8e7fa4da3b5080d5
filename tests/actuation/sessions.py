"""Claude Code transcripts written in the real on-disk format, then run through the whole
loop: the claude-code producer, the analyzers, the Retain Job and the sleep cycle (whose
last step is actuation's detectors)."""

from __future__ import annotations

import random
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from insight.demo.corpus import encode_cwd
from insight.demo.transcript import TranscriptWriter
from insight.producers.base import NoProgress
from insight.producers.claude_code import ClaudeCodeProducer
from insight.services.analysis import analysis_drain
from memory.models import SleepCycleRun
from memory.services.retain import retain_drain
from memory.services.sleep_cycle import sleep_cycle_run

NOT_READ = "File has not been read yet. Read it first before writing to it."


class Session:
    def __init__(self, root: Path, *, cwd: str, start: datetime, seed: int) -> None:
        folder = root / encode_cwd(cwd)
        folder.mkdir(parents=True, exist_ok=True)
        rng = random.Random(seed)
        self.session_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        self.fh = (folder / f"{self.session_id}.jsonl").open("wb")
        self.w = TranscriptWriter(self.fh, rng=rng, session_id=self.session_id, cwd=cwd,
                                  version="2.0.14", branch="main", start=start)
        self.cwd = cwd

    def tool(self, name: str, tool_input: dict[str, Any], result: str, *,
             is_error: bool = False) -> None:
        call = self.w.tool_use(name, tool_input)
        self.w.assistant([call])
        self.w.tool_result(call["id"], result, is_error=is_error)

    def edit_before_read(self, path: str = "src/app.py", *, said: str = NOT_READ) -> None:
        target = f"{self.cwd}/{path}"
        edit = {"file_path": target, "old_string": "x = 1", "new_string": "x = 2"}
        self.tool("Edit", edit, f"<tool_use_error>{said}</tool_use_error>", is_error=True)
        self.tool("Read", {"file_path": target}, "     1\tx = 1\n")
        self.tool("Edit", edit, f"The file {target} has been updated.")

    def clean_work(self, path: str = "src/app.py") -> None:
        target = f"{self.cwd}/{path}"
        self.tool("Read", {"file_path": target}, "     1\tx = 1\n")
        self.tool("Edit", {"file_path": target, "old_string": "x = 1", "new_string": "x = 3"},
                  f"The file {target} has been updated.")

    def close(self) -> None:
        self.w.assistant([{"type": "text", "text": "Done."}])
        self.fh.close()


# Sessions this far apart: three of them cover two days (a pitfall recurs across days).
SPACING = timedelta(hours=10)


def sessions_write(root: Path, *, cwd: str, start: datetime, count: int, seed: int,
                   error: bool) -> None:
    """`count` sessions, each fixing a bug of its own file (distinct work, not copies)."""
    for i in range(count):
        session = Session(root, cwd=cwd, start=start + SPACING * i, seed=seed + i)
        path = f"src/module_{seed + i}.py"
        session.w.prompt(f"Please fix the bug in {path}.")
        if error:
            session.edit_before_read(path)
        else:
            session.clean_work(path)
        session.close()


def loop_run(root: Path, *, now: datetime) -> SleepCycleRun:
    """Ingest, analyze, retain, then the sleep cycle as of `now`."""
    ClaudeCodeProducer(roots=[root]).run(progress=NoProgress())
    analysis_drain()
    retain_drain(embed=False)
    return sleep_cycle_run(now=now, trigger="test")
