"""`cortex demo`: the whole loop once, on a corpus the project generates itself (it drives
the producers, so it sits with them above the services)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from insight.demo.finishers import DemoContext, DemoSection, demo_finishers_run
from insight.demo.ingest import DemoIngest, demo_corpus_ingest
from insight.demo.readback import demo_context, demo_recall
from insight.producers.base import Progress
from insight.services.analysis import AnalysisTotals, analysis_drain
from memory import clock
from memory.models import SleepCycleRun
from memory.selectors.graph import GraphSummary, graph_summary
from memory.services.retain import RetainReport, retain_drain
from memory.services.setup import cortex_prepare
from memory.services.sleep_cycle import sleep_cycle_run


@dataclass
class DemoReport:
    ingest: DemoIngest
    analysis: AnalysisTotals
    retain: RetainReport
    sleep_cycle: SleepCycleRun
    graph: GraphSummary
    as_of: datetime
    sections: list[DemoSection] = field(default_factory=list)


def demo_as_of(ended_at: datetime | None) -> datetime:
    """The demo is read an hour after its last session, as by the operator who had just lived
    it: its corpus is fixed in time (same seed, same bytes), and read months later all of it
    has faded below the injection threshold."""
    return ended_at + timedelta(hours=1) if ended_at else clock.now()


def demo_run(*, out: Path, seed: int = 7, progress: Progress | None = None) -> DemoReport:
    """Capture -> raw log -> observations -> graph -> sleep cycle, then the graph's summary."""
    cortex_prepare()
    ingest = demo_corpus_ingest(out=out, seed=seed, progress=progress)
    analysis = analysis_drain()
    retain = retain_drain()
    as_of = demo_as_of(ingest.corpus.ended_at)
    run = sleep_cycle_run(now=as_of, trigger="demo")
    context = DemoContext(out=out, repo=ingest.corpus.repo, as_of=as_of)
    return DemoReport(ingest=ingest, analysis=analysis, retain=retain, sleep_cycle=run,
                      graph=graph_summary(limit=10, now=as_of), as_of=as_of,
                      sections=[demo_recall(context), demo_context(context),
                                *demo_finishers_run(context)])
