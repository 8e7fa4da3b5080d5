"""`cortex demo`: the whole loop once, on a corpus the project generates itself (it drives
the producers, so it sits with them above the services)."""

from __future__ import annotations

import json
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


# The demo's last session ends this long before the demo runs: just lived, and in the past.
ENDED_BEFORE_RUN = timedelta(minutes=10)
ANCHOR_FILE = "corpus.json"


def demo_corpus_end(*, out: Path, seed: int, now: datetime) -> datetime:
    """When the demo corpus's last session ends: shortly before `now` the first time, and
    then the same date on every later run into the same `out` (recorded there). The corpus
    is then the same bytes again and a second run adds nothing; re-dated, the repository's
    commits would be new commits."""
    anchor = out / ANCHOR_FILE
    try:
        recorded = json.loads(anchor.read_text())
        if recorded.get("seed") == seed:
            return datetime.fromisoformat(recorded["ended_at"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    ended_at = now - ENDED_BEFORE_RUN
    out.mkdir(parents=True, exist_ok=True)
    anchor.write_text(json.dumps({"seed": seed, "ended_at": ended_at.isoformat()}) + "\n")
    return ended_at


def demo_run(*, out: Path, seed: int = 7, progress: Progress | None = None) -> DemoReport:
    """Capture -> raw log -> observations -> graph -> sleep cycle, then the graph's summary,
    all as of now: the corpus is dated to have just been lived."""
    cortex_prepare()
    ends_at = demo_corpus_end(out=out, seed=seed, now=clock.now())
    ingest = demo_corpus_ingest(out=out, seed=seed, progress=progress, ends_at=ends_at)
    analysis = analysis_drain()
    retain = retain_drain()
    as_of = clock.now()
    run = sleep_cycle_run(now=as_of, trigger="demo")
    context = DemoContext(out=out, repo=ingest.corpus.repo, as_of=as_of)
    return DemoReport(ingest=ingest, analysis=analysis, retain=retain, sleep_cycle=run,
                      graph=graph_summary(limit=10, now=as_of), as_of=as_of,
                      sections=[demo_recall(context), demo_context(context),
                                *demo_finishers_run(context)])
