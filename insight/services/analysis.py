"""Running the analyzers over the events they have not read yet.

Each analyzer keeps, per source, a cursor into Layer 1's commit-ordered stream
(`event_reads_after`: no event committed late is skipped). A batch is read once for every
analyzer standing at the same position, and the observations it yields are written in
the same transaction that moves their cursors: a crash replays the batch, and replaying
creates nothing twice (observations are idempotent on their dedup key).

An analyzer in TALLIES drafts units that add up: one observation per key, each of its events
counted once (memory/services/observation_tallies.py), e.g. speech acts per session and
pair."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction

from insight.analyzers import ANALYZERS, Analyzer, ObservationDraft, speech_acts
from insight.models import AnalyzerCursor
from memory import clock
from memory.collector import collector_paused
from memory.config import config_get
from memory.errors import Invalid
from memory.models.events import MemoryEvent
from memory.queueing import task_enqueue
from memory.selectors.events import event_held_back, event_reads_after
from memory.services.observation_tallies import Add, observation_tally_many
from memory.services.observations import ObservationSubmitResult, observation_submit_many

logger = logging.getLogger(__name__)

HORIZON_POLL_SECONDS = 0.1  # how often a drain held back by an open transaction asks again

# Analyzer -> how its units add to the observation their key names.
TALLIES: dict[str, Add] = {speech_acts.ANALYZER.name: speech_acts.tally_add}


@dataclass
class BatchReport:
    source: str
    analyzers: tuple[str, ...] = ()
    events: int = 0
    observations: int = 0
    created: dict[str, int] = field(default_factory=dict)
    rejected: int = 0
    # True when another batch may be waiting (a full batch, or analyzers left behind).
    more: bool = False


def analyzers_for(source: str, names: Iterable[str] | None = None) -> list[Analyzer]:
    wanted = set(names) if names is not None else None
    return [a for a in ANALYZERS.values()
            if source in a.sources and (wanted is None or a.name in wanted)]


def analyzed_sources() -> list[str]:
    return sorted({source for a in ANALYZERS.values() for source in a.sources})


def event_as_dict(event: MemoryEvent, *, context: bool = False) -> dict[str, Any]:
    """The event in the producers' contract shape, which analyzers read."""
    return {
        "id": event.id, "source": event.source, "source_id": event.source_id,
        "type": event.type, "subtype": event.subtype, "occurred_at": event.occurred_at,
        "actor": event.actor, "project": event.project, "correlation": event.correlation,
        "payload": event.payload, "context": context,
    }


# Events whose meaning depends on their parent: the tool call a result answers, the
# interrupt or rejection a prompt answers (insight/analyzers/rule_context.py), the pull
# request or issue a review or comment replies to.
_NEEDS_PARENT = {"user.tool_result", "user.prompt", "review", "comment"}


def _context_events(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The parents of this batch's events (as event_reads_after reads them), when an
    earlier batch held them."""
    wanted: set[str] = set()
    for event in events:
        if event["subtype"] in _NEEDS_PARENT:
            payload = event["payload"] if isinstance(event["payload"], Mapping) else {}
            wanted.update(str(v) for v in (event["correlation"]["parent"],
                                           payload.get("sourceToolAssistantUUID")) if v)
    wanted -= {event["source_id"] for event in events}
    if not wanted:
        return []
    parents = MemoryEvent.objects.filter(source=events[0]["source"], source_id__in=wanted)
    return [event_as_dict(parent, context=True) for parent in parents]


def draft_submission(analyzer: str, draft: ObservationDraft) -> dict[str, Any]:
    return {
        "source": f"insight:{analyzer}", "category": draft.category,
        "timestamp": draft.timestamp, "target_namespace": draft.target_namespace,
        "topic": draft.topic[:300], "actors": list(draft.actors),
        "sentiment": draft.sentiment, "sentiment_score": draft.sentiment_score,
        "payload_typed": draft.payload, "correlation": draft.correlation,
        "event_ids": list(draft.event_ids),
        "dedup_key": draft.key or "events:" + ",".join(sorted(draft.event_ids)),
    }


def _drafts(analyzer: Analyzer, events: list[dict[str, Any]]) -> list[ObservationDraft]:
    """The analyzer's drafts. If it fails on the batch, each event is retried alone (the others
    as context) and the events it still fails on are logged and skipped: one odd event must
    not stop every later one (the sweep would replay the same failure forever)."""
    try:
        return analyzer.analyze(events)
    except Exception:
        logger.exception("analyzer %s failed on a batch; retrying event by event", analyzer.name)
    drafts: list[ObservationDraft] = []
    for index, event in enumerate(events):
        if event.get("context"):
            continue
        alone = [e if i == index else {**e, "context": True} for i, e in enumerate(events)]
        try:
            drafts += analyzer.analyze(alone)
        except Exception:
            logger.exception("analyzer %s skips event %s", analyzer.name, event["id"])
    return drafts


def _submissions(analyzer: Analyzer, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Its drafts as submissions; a tally's units all kept (they add up), any other
    analyzer's repeats of a key left out."""
    drafts = [draft_submission(analyzer.name, d) for d in _drafts(analyzer, events)]
    if analyzer.name in TALLIES:
        return drafts
    seen, out = set(), []
    for submission in drafts:
        if submission["dedup_key"] not in seen:
            seen.add(submission["dedup_key"])
            out.append(submission)
    return out


Store = Callable[[list[dict[str, Any]]], list[ObservationSubmitResult]]


def _plain(submissions: list[dict[str, Any]]) -> list[ObservationSubmitResult]:
    return observation_submit_many(observations=submissions, check_events=False)


def _store_for(analyzer: str) -> Store:
    add = TALLIES.get(analyzer)
    if add is None:
        return _plain
    return lambda units: observation_tally_many(units=units, add=add)


def _submit(submissions: list[dict[str, Any]], store: Store = _plain) -> list[bool | None]:
    """Created flags, aligned with `submissions` (None: rejected). An invalid draft is an
    analyzer's bug: it is logged and left out rather than blocking every later event."""
    try:
        return [r.created for r in store(submissions)]
    except Invalid as error:
        problems = error.fields.get("observations")
        if not isinstance(problems, dict):
            raise
        bad = {int(index) for index in problems if index.isdigit()}
        if not bad:
            raise
        for index in sorted(bad):
            logger.warning("analyzer draft rejected: %s %s", submissions[index]["source"],
                           problems[str(index)])
        kept = [i for i in range(len(submissions)) if i not in bad]
        flags: list[bool | None] = [None] * len(submissions)
        if kept:
            for index, flag in zip(kept, _submit([submissions[i] for i in kept], store),
                                   strict=True):
                flags[index] = flag
        return flags


def _locked_cursors(source: str, names: list[str]) -> list[AnalyzerCursor]:
    """The cursors of these analyzers, locked; those another worker holds are left out."""
    AnalyzerCursor.objects.bulk_create(
        [AnalyzerCursor(analyzer=name, source=source) for name in names], ignore_conflicts=True)
    return list(AnalyzerCursor.objects.select_for_update(skip_locked=True)
                .filter(source=source, analyzer__in=names).order_by("analyzer"))


def _behind(cursors: list[AnalyzerCursor]) -> list[AnalyzerCursor]:
    """The analyzers furthest behind (the others wait until these catch up)."""
    def rank(cursor: AnalyzerCursor) -> tuple[int, str]:
        position = cursor.position
        return (-1, "") if position is None else (int(position[0]), str(position[1]))
    lowest = min(rank(cursor) for cursor in cursors)
    return [cursor for cursor in cursors if rank(cursor) == lowest]


def _analyze(group: list[AnalyzerCursor], events: list[dict[str, Any]],
             report: BatchReport) -> dict[str, int]:
    """Observations of every analyzer of the group, written; how many each created. The
    plain ones are stored together; each tallying analyzer's units on their own."""
    plain: list[dict[str, Any]] = []
    owners: list[str] = []
    created = dict.fromkeys((cursor.analyzer for cursor in group), 0)
    for cursor in group:
        found = _submissions(ANALYZERS[cursor.analyzer], events)
        if cursor.analyzer in TALLIES:
            _store_chunks(found, [cursor.analyzer] * len(found), created, report,
                          _store_for(cursor.analyzer))
        else:
            plain += found
            owners += [cursor.analyzer] * len(found)
    _store_chunks(plain, owners, created, report, _plain)
    return created


def _store_chunks(submissions: list[dict[str, Any]], owners: list[str], created: dict[str, int],
                  report: BatchReport, store: Store) -> None:
    size = config_get().analysis.submit_chunk
    for start in range(0, len(submissions), size):
        flags = _submit(submissions[start:start + size], store)
        for owner, flag in zip(owners[start:start + size], flags, strict=True):
            if flag is None:
                report.rejected += 1
            else:
                report.observations += int(flag is True or owner not in TALLIES)
                created[owner] += int(flag)


def analysis_batch_run(*, source: str, batch_size: int | None = None,
                       analyzers: Iterable[str] | None = None) -> BatchReport:
    """Analyze the next batch of `source`'s events for the analyzers furthest behind
    (`batch_size` events; default: `analysis.batch_size` in the config)."""
    batch_size = batch_size or config_get().analysis.batch_size
    names = [a.name for a in analyzers_for(source, analyzers)]
    report = BatchReport(source=source)
    if not names:
        return report
    with transaction.atomic(), collector_paused():
        cursors = _locked_cursors(source, names)
        if not cursors:
            return report
        group = _behind(cursors)
        report.analyzers = tuple(cursor.analyzer for cursor in group)
        # Lean: analyzers read a tool's output in the message, not its copy in toolUseResult.
        batch, position = event_reads_after(cursor=group[0].position, limit=batch_size,
                                            source=source)
        if not batch:
            return report
        report.more = len(batch) == batch_size or len(group) < len(cursors)
        events = batch + _context_events(batch)
        report.events = len(batch)
        report.created = _analyze(group, events, report)
        _cursors_advance(group, position=position, seen=len(batch), created=report.created)
    return report


def _cursors_advance(group: list[AnalyzerCursor], *, position: Any, seen: int,
                     created: Mapping[str, int]) -> None:
    """The group's cursors moved past a batch, in one statement: a save each was ~5% of the
    first import's analysis, and Django's bulk_update (a CASE per field and cursor, built in
    Python) still cost 3.5 ms of CPU a batch."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"""UPDATE {AnalyzerCursor._meta.db_table} AS c
                SET position = %s::jsonb, updated_at = %s,
                    events_seen = c.events_seen + %s,
                    observations_created = c.observations_created + n.created
                FROM unnest(%s::bigint[], %s::bigint[]) AS n(id, created)
                WHERE c.id = n.id""",
            [json.dumps(position), clock.now(), seen, [c.pk for c in group],
             [created[c.analyzer] for c in group]])


def analysis_cursors_reset(*, source: str | None = None,
                           analyzers: Iterable[str] | None = None) -> int:
    """Start these analyzers over (re-analysis creates no second observation)."""
    cursors = AnalyzerCursor.objects.all()
    if source is not None:
        cursors = cursors.filter(source=source)
    if analyzers is not None:
        cursors = cursors.filter(analyzer__in=list(analyzers))
    return cursors.update(position=None, updated_at=clock.now())


def analysis_enqueue(*, sources: Iterable[str] | None = None,
                     batch_size: int | None = None) -> None:
    """Queue the analysis of these sources once the current transaction commits."""
    for source in sources if sources is not None else analyzed_sources():
        task_enqueue("insight.analysis_run", source=source, batch_size=batch_size)


@dataclass
class AnalysisTotals:
    events: dict[str, int] = field(default_factory=dict)
    analyzed: dict[str, int] = field(default_factory=dict)
    observations_created: dict[str, int] = field(default_factory=dict)
    rejected: int = 0
    # Sources whose committed events stayed behind a transaction open elsewhere (the workers'
    # sweep, or the next drain, reads them once it ends).
    held_back: list[str] = field(default_factory=list)

    def add(self, report: BatchReport) -> None:
        self.events[report.source] = self.events.get(report.source, 0) + report.events
        for name, count in report.created.items():
            self.observations_created[name] = self.observations_created.get(name, 0) + count
        if report.events:
            for name in report.analyzers:
                self.analyzed[name] = self.analyzed.get(name, 0) + report.events
        self.rejected += report.rejected

    def as_dict(self) -> dict[str, Any]:
        return {"events": self.events, "analyzed": self.analyzed,
                "observations_created": self.observations_created, "rejected": self.rejected,
                "held_back": self.held_back}


def analysis_drain(*, sources: Iterable[str] | None = None,
                   analyzers: Iterable[str] | None = None, restart: bool = False,
                   batch_size: int | None = None) -> AnalysisTotals:
    """Analyze every event not analyzed yet (from the first one with `restart`), synchronously.
    Events a transaction still open elsewhere holds back are waited for, up to
    `analysis.horizon_wait_seconds` in all; the sources still held back then are in
    `held_back`."""
    names = list(analyzers) if analyzers is not None else None
    totals = AnalysisTotals()
    deadline = time.monotonic() + config_get().analysis.horizon_wait_seconds
    for source in sources if sources is not None else analyzed_sources():
        if restart:
            analysis_cursors_reset(source=source, analyzers=names)
        _source_drain(source=source, analyzers=names, batch_size=batch_size,
                      deadline=deadline, totals=totals)
    return totals


def _source_drain(*, source: str, analyzers: list[str] | None, batch_size: int | None,
                  deadline: float, totals: AnalysisTotals) -> None:
    settled = False
    while True:
        report = analysis_batch_run(source=source, batch_size=batch_size, analyzers=analyzers)
        totals.add(report)
        if report.more:
            continue
        if settled and not report.events:
            return
        if not analysis_held_back(source=source, analyzers=analyzers):
            # Nothing waits now; but a transaction that held events back may have committed
            # between the read and this check: read once more before leaving.
            settled = True
            continue
        settled = False
        if time.monotonic() >= deadline:
            totals.held_back.append(source)
            return
        time.sleep(HORIZON_POLL_SECONDS)


def analysis_held_back(*, source: str, analyzers: Iterable[str] | None = None) -> bool:
    """Whether committed events of `source` wait, unread by these analyzers, behind a
    transaction still open in the database (nothing can be read past it yet)."""
    names = [a.name for a in analyzers_for(source, analyzers)]
    cursors = list(AnalyzerCursor.objects.filter(source=source, analyzer__in=names))
    if not names or len(cursors) < len(names):  # an analyzer that never ran reads from 0
        return event_held_back(cursor=None, source=source) if names else False
    return event_held_back(cursor=_behind(cursors)[0].position, source=source)
