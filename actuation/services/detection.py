"""Running the detectors: each proposes drafts from the graph; the drafts become proposals
(or are recognised as already held, rejected before, or not grounded). A budget holds the
queue short: at most `max_new_per_repository` new proposals per repository and detection, the
most evidenced first (new drafts and those waiting from earlier nights alike); the others
wait, never lost. Nothing is mutated outside the queue."""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter, defaultdict
from datetime import datetime

from actuation.detectors.base import Draft, detectors
from actuation.models import Proposal
from actuation.selectors.graph import Graph
from actuation.selectors.proposals import proposals_waiting, proposals_waiting_repositories
from actuation.services.outcomes import outcomes_update
from actuation.services.proposals import (
    Submitted,
    entities_grounding,
    proposal_known,
    proposal_promote,
    proposal_submit,
)
from memory import clock
from memory.config import DecayConfig, config_get

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class DetectionReport:
    drafts: list[Draft] = dataclasses.field(default_factory=list)
    outcomes: Counter[str] = dataclasses.field(default_factory=Counter)
    proposals: list[int] = dataclasses.field(default_factory=list)  # into the queue now
    waiting: list[int] = dataclasses.field(default_factory=list)  # past the budget
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
    fresh: dict[int, list[Draft]] = defaultdict(list)
    for draft in report.drafts:
        if (known := proposal_known(draft=draft, grounding=grounding)) is not None:
            report.outcomes[known.outcome] += 1
        else:
            fresh[draft.repository.pk].append(draft)
    for repository_id in sorted(set(fresh) | proposals_waiting_repositories()):
        _budget(report, fresh.get(repository_id, []), repository_id, now=now, config=config,
                grounding=grounding)
    report.judged = outcomes_update(now=now, config=config)
    return report


def _budget(report: DetectionReport, drafts: list[Draft], repository_id: int, *,
            now: datetime, config: DecayConfig, grounding: set[int]) -> None:
    """The repository's new drafts and waiting proposals, the most evidenced first: the
    first `max_new_per_repository` into the queue, the others waiting. A waiting proposal
    whose pattern a new draft renews is superseded by it, not promoted."""
    renewed = {(d.file_path, d.pattern_key) for d in drafts}
    waiting = [p for p in proposals_waiting(repository_id=repository_id)
               if (p.file_path, p.pattern_key) not in renewed]
    ranked: list[tuple[tuple[int, int], int, Draft | Proposal]] = [
        *((d.weight, n, d) for n, d in enumerate(drafts)),
        *(((p.recurrences_before, 0), len(drafts) + n, p) for n, p in enumerate(waiting))]
    ranked.sort(key=lambda r: (-r[0][0], -r[0][1], r[1]))
    for turn, (_, _, candidate) in enumerate(ranked):
        in_budget = turn < config.actuation.max_new_per_repository
        if isinstance(candidate, Proposal):
            if in_budget:
                proposal_promote(proposal_id=candidate.pk)
                report.outcomes["promoted"] += 1
                report.proposals.append(candidate.pk)
            continue
        result = proposal_submit(draft=candidate, now=now, config=config, grounding=grounding,
                                 waiting=not in_budget)
        report.outcomes[result.outcome] += 1
        if result.proposal is not None and result.outcome == Submitted.CREATED:
            report.proposals.append(result.proposal.pk)
        elif result.proposal is not None and result.outcome == Submitted.WAITING:
            report.waiting.append(result.proposal.pk)


def detection_counts(report: DetectionReport) -> dict[str, int]:
    return {"drafts": len(report.drafts), **{f"proposals_{k}": v for k, v in
                                              report.outcomes.items()},
            "outcomes_judged": report.judged}
