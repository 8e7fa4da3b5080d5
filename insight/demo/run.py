"""`cortex demo`: the whole loop once, on a corpus the project generates itself (it drives
the producers, so it sits with them above the services)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from insight.demo.finishers import DemoContext, DemoSection, demo_finishers_run
from insight.demo.ingest import DemoIngest
from insight.demo.lived import DEMO_TRIGGER, demo_corpus_live
from insight.demo.readback import demo_context, demo_recall
from insight.producers.base import Progress
from insight.services.analysis import AnalysisTotals
from memory import clock
from memory.models import SleepCycleRun
from memory.selectors.graph import GraphSummary, graph_summary
from memory.services.embeddings import embedding_passes_run
from memory.services.retain import RetainReport
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
    nights: int = 0  # the nightly sleep cycles the corpus lived before this one
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
    """Capture -> raw log -> observations -> graph -> sleep cycle, the corpus lived night by
    night (insight.demo.lived), then the graph's summary as of now: the corpus is dated to
    have just been lived."""
    cortex_prepare()
    ends_at = demo_corpus_end(out=out, seed=seed, now=clock.now())
    lived = demo_corpus_live(out=out, seed=seed, ends_at=ends_at, progress=progress)
    ingest = DemoIngest(corpus=lived.corpus, sessions=lived.sessions, git=lived.git)
    embedding_passes_run()
    as_of = clock.now()
    run = sleep_cycle_run(now=as_of, trigger=DEMO_TRIGGER)
    context = DemoContext(out=out, repo=ingest.corpus.repo, as_of=as_of)
    return DemoReport(ingest=ingest, analysis=lived.analysis, retain=lived.retain,
                      sleep_cycle=run, nights=len(lived.nights),
                      graph=graph_summary(limit=10, now=as_of), as_of=as_of,
                      sections=[demo_recall(context), demo_context(context),
                                *demo_finishers_run(context)])
