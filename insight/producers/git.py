"""`cortex ingest git PATH`: a repository's commits and branches, from the last tips on."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from insight.producers.base import IngestSummary, Progress
from insight.producers.git_log import (
    SOURCE,
    branch_event,
    branch_name,
    commit_event,
    existing_commits,
    git_commits,
    git_refs,
    repo_name,
)
from insight.producers.sink import EventSink
from insight.selectors.ingest_state import git_repository_tips_get
from insight.services.ingest_state import git_repository_tips_save
from memory import clock


class GitProducer:
    source = SOURCE

    def __init__(self, *, repo: Path) -> None:
        self.repo = repo.resolve()
        self.name = repo_name(self.repo)

    def run(self, *, progress: Progress) -> IngestSummary:
        started = time.monotonic()
        summary = IngestSummary(source=self.source, files=1)
        summary.files_by_kind["repository"] += 1
        known = git_repository_tips_get(path=self.repo)
        refs = git_refs(self.repo)
        progress.start(files=1, total_bytes=0)
        with EventSink(source=self.source, summary=summary, progress=progress,
                       commit_marks=lambda marks: self._save_tips(marks[0], summary)) as sink:
            self._commits(refs, known, sink, summary)
            sink.mark("tips", refs)  # only once every commit before it is stored
            sink.flush()
        progress.advance(files=1)
        summary.lines = summary.records
        summary.seconds = time.monotonic() - started
        return summary

    def _commits(self, refs: dict[str, str], known: dict[str, str], sink: EventSink,
                 summary: IngestSummary) -> None:
        tips, dates = set(refs.values()), {}
        for commit in git_commits(self.repo, exclude=existing_commits(self.repo, known.values())):
            summary.records += 1
            if commit["sha"] in tips:
                dates[commit["sha"]] = commit["committed_at"]
            sink.add([commit_event(commit, repo=self.name)], size=len(commit["message"]))
        for ref, tip in sorted(refs.items()):
            if known.get(ref) != tip and branch_name(ref):  # tags only bound the next run
                when = dates.get(tip) or clock.now().isoformat()
                sink.add([branch_event(repo=self.name, ref=ref, tip=tip, occurred_at=when)])

    def _save_tips(self, tips: dict[str, Any], summary: IngestSummary) -> None:
        git_repository_tips_save(path=self.repo, name=self.name, tips=tips,
                                 commits=summary.records)
