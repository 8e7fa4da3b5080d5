"""The demo corpus, written and ingested: what `cortex demo` starts from."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from insight.demo.corpus import CorpusInfo, corpus_write
from insight.producers.base import IngestSummary, NoProgress, Progress
from insight.producers.claude_code import ClaudeCodeProducer
from insight.producers.git import GitProducer


@dataclass
class DemoIngest:
    corpus: CorpusInfo
    sessions: IngestSummary
    git: IngestSummary | None


def demo_corpus_ingest(*, out: Path, seed: int = 7, progress: Progress | None = None,
                       ends_at: datetime | None = None) -> DemoIngest:
    """Write the demo corpus under `out` (its last session ending at `ends_at`, or on its
    fixed dates) and ingest its sessions and its repository."""
    progress = progress or NoProgress()
    corpus = corpus_write(out, seed=seed, ends_at=ends_at)
    sessions = ClaudeCodeProducer(roots=[corpus.projects_root]).run(progress=progress)
    git = GitProducer(repo=corpus.repo).run(progress=progress) if corpus.repo else None
    return DemoIngest(corpus=corpus, sessions=sessions, git=git)
