"""The demo corpus lived as it is written: its repository's history first, then its sessions
one after the other; before a session that starts after a night, what came before is
ingested, analyzed and retained, and the nightly sleep cycle runs as of that night (at its
beat hour). The console opened right after the demo shows that history (the strength each
night, the threshold crossings per day), not one evaluation of everything at once.

A night already evaluated (a second demo run into the same directory, or an earlier run
as of a later date) is not run again: the sleep cycle never evaluates backwards."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from insight.demo.corpus import CorpusInfo, corpus_write
from insight.producers.base import IngestSummary, NoProgress, Progress
from insight.producers.claude_code import ClaudeCodeProducer
from insight.producers.git import GitProducer
from insight.services.analysis import AnalysisTotals, analysis_drain
from memory.models import SleepCycleRun
from memory.services.retain import RetainReport, retain_drain
from memory.services.sleep_cycle import sleep_cycle_run

SLEEP_CYCLE_ENTRY = "memory: sleep cycle"
DEMO_TRIGGER = "demo"


@dataclass
class DemoLived:
    corpus: CorpusInfo
    sessions: IngestSummary = field(default_factory=lambda: IngestSummary(source="claude-code"))
    git: IngestSummary | None = None
    analysis: AnalysisTotals = field(default_factory=AnalysisTotals)
    retain: RetainReport = field(default_factory=RetainReport)
    nights: list[SleepCycleRun] = field(default_factory=list)


# What a run sees of the files (every file, read or not): the latest run's, not a sum.
_SEEN = ("source", "files", "files_by_kind")


def _summary_add(total: IngestSummary, part: IngestSummary) -> None:
    total.files, total.files_by_kind = part.files, part.files_by_kind
    for f in fields(IngestSummary):
        if f.name in _SEEN:
            continue
        mine, theirs = getattr(total, f.name), getattr(part, f.name)
        if hasattr(mine, "update"):
            mine.update(theirs)
        else:
            setattr(total, f.name, mine + theirs)


def _analysis_add(total: AnalysisTotals, part: AnalysisTotals) -> None:
    for mine, theirs in ((total.events, part.events), (total.analyzed, part.analyzed),
                         (total.observations_created, part.observations_created)):
        for name, count in theirs.items():
            mine[name] = mine.get(name, 0) + count
    total.rejected += part.rejected
    total.held_back = sorted(set(total.held_back) | set(part.held_back))


def _retain_add(total: RetainReport, part: RetainReport) -> None:
    total.processed += part.processed
    total.gave_up += part.gave_up
    total.chunks.add(part.chunks)


def sleep_hour() -> tuple[int, int]:
    """The nightly sleep cycle's (hour, minute) in TIME_ZONE, as the beat schedule seeds it."""
    schedule = settings.CORTEX_BEAT_SCHEDULE[SLEEP_CYCLE_ENTRY]["schedule"]
    return min(schedule.hour), min(schedule.minute)


def nights_between(after: datetime, upto: datetime) -> list[datetime]:
    """The sleep cycle's nightly times in (`after`, `upto`]."""
    hour, minute = sleep_hour()
    local = timezone.localtime(after)
    night = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    nights = []
    while night <= upto:
        if night > after:
            nights.append(night)
        night = timezone.make_aware(night.replace(tzinfo=None) + timedelta(days=1))
    return nights


class _Living:
    def __init__(self, lived: DemoLived, progress: Progress) -> None:
        self.lived, self.progress = lived, progress
        latest = SleepCycleRun.objects.aggregate(at=Max("as_of"))["at"]
        self.evaluated_until = latest

    def catch_up(self) -> None:
        """Ingest, analyze and retain what is written so far."""
        lived = self.lived
        sessions = ClaudeCodeProducer(roots=[lived.corpus.projects_root]).run(
            progress=self.progress)
        _summary_add(lived.sessions, sessions)
        if lived.corpus.repo is not None:
            git = GitProducer(repo=lived.corpus.repo).run(progress=self.progress)
            if lived.git is None:
                lived.git = git
            else:
                _summary_add(lived.git, git)
        _analysis_add(lived.analysis, analysis_drain())
        _retain_add(lived.retain, retain_drain(embed=False))

    def before_session(self, info: CorpusInfo, start: datetime) -> None:
        self.lived.corpus = info  # the producers read where the corpus is being written
        # Before the first session: the night before it, on the repository's history alone.
        after = info.ended_at if info.ended_at is not None else start - timedelta(days=1)
        if self.evaluated_until is not None:
            after = max(after, self.evaluated_until)
        nights = nights_between(after, start)
        if not nights:
            return
        self.catch_up()
        for night in nights:
            self.lived.nights.append(sleep_cycle_run(now=night, trigger=DEMO_TRIGGER))
        self.evaluated_until = nights[-1]


def demo_corpus_live(*, out: Path, seed: int, ends_at: datetime,
                     progress: Progress | None = None) -> DemoLived:
    """Write the demo corpus under `out` (its last session ending at `ends_at`), living its
    nights as it goes, and ingest, analyze and retain all of it."""
    lived = DemoLived(corpus=CorpusInfo(projects_root=out, repo=None))
    living = _Living(lived, progress or NoProgress())
    lived.corpus = corpus_write(out, seed=seed, ends_at=ends_at,
                                before_session=living.before_session)
    living.catch_up()
    return lived
