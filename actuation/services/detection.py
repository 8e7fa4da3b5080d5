"""Running the detectors: each proposes drafts from the graph; the drafts become proposals
(or are recognised as already open, rejected before, or not grounded). Nothing is mutated
outside the queue."""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter
from datetime import datetime

from actuation.detectors.base import Draft, detectors
from actuation.selectors.graph import Graph
from actuation.services.outcomes import outcomes_update
from actuation.services.proposals import entities_grounding, proposal_submit
from memory import clock
from memory.config import DecayConfig, config_get

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class DetectionReport:
    drafts: list[Draft] = dataclasses.field(default_factory=list)
    outcomes: Counter[str] = dataclasses.field(default_factory=Counter)
    proposals: list[int] = dataclasses.field(default_factory=list)
    judged: int = 0


def detection_drafts(*, now: datetime, config: DecayConfig) -> list[Draft]:
    graph = Graph(now=now, config=config)
    drafts: list[Draft] = []
    if not graph.repositories:
        return drafts
    for detector in detectors():
        drafts.extend(detector.detect(graph, now, config))
    return drafts


def detection_run(*, now: datetime | None = None, config: DecayConfig | None = None,
                  dry_run: bool = False) -> DetectionReport:
    """Every detector over the graph at `now`; with `dry_run`, the drafts only."""
    now, config = now or clock.now(), config or config_get()
    report = DetectionReport(drafts=detection_drafts(now=now, config=config))
    if dry_run:
        return report
    grounding = entities_grounding(ids={g.id for d in report.drafts for g in d.grounding},
                                   now=now, config=config)
    for draft in report.drafts:
        result = proposal_submit(draft=draft, now=now, config=config, grounding=grounding)
        report.outcomes[result.outcome] += 1
        if result.proposal is not None and result.outcome == "created":
            report.proposals.append(result.proposal.pk)
    report.judged = outcomes_update(now=now, config=config)
    return report


def detection_counts(report: DetectionReport) -> dict[str, int]:
    return {"drafts": len(report.drafts), **{f"proposals_{k}": v for k, v in
                                              report.outcomes.items()},
            "outcomes_judged": report.judged}
