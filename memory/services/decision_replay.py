"""`cortex rebuild graph` replays the decisions of the raw log (memory.services.decisions).

In commit order, each decision is applied once the Retain Job has retained what it had
retained when the decision was taken (the observations up to its `retained_through` order
key, then the offline embedding passes), by the service that took it: the targets its
payload names by key are found again, and the service runs inside `decision_replaying`,
so it checks the event instead of appending a new one. A decision that no longer applies
(its target is gone, the item already resolved) is counted and skipped; its service's
transaction leaves nothing behind. Decisions on other layers (proposals) are counted only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ObjectDoesNotExist

from memory.config import DecayConfig, config_get
from memory.errors import DomainError
from memory.models import MemoryEvent
from memory.selectors.decisions import conflict_of, decision_events, merge_unsplit, review_item_of
from memory.services.decisions import (
    RETAINED_THROUGH,
    Decider,
    Subtype,
    decision_replaying,
)
from memory.services.embeddings import embedding_passes_run
from memory.services.feedback import entity_feedback, entity_pin, entity_unpin
from memory.services.locks import retain_lock
from memory.services.merges import entity_merge_decide, entity_merge_split
from memory.services.retain import RetainReport, retain_run
from memory.services.review import conflict_resolve, review_accept, review_keep, review_merge

logger = logging.getLogger(__name__)

Apply = Callable[[dict[str, Any], Decider, MemoryEvent, DecayConfig], object]


def _accept(p: dict[str, Any], by: Decider, e: MemoryEvent, c: DecayConfig) -> object:
    return review_accept(item_id=review_item_of(observation=p["observation"]), by=by,
                         now=e.occurred_at, config=c)


def _keep(p: dict[str, Any], by: Decider, e: MemoryEvent, c: DecayConfig) -> object:
    return review_keep(item_id=review_item_of(observation=p["observation"]), by=by,
                       now=e.occurred_at)


def _review_merge(p: dict[str, Any], by: Decider, e: MemoryEvent, c: DecayConfig) -> object:
    return review_merge(item_id=review_item_of(observation=p["observation"]),
                        into_key=p["into"], by=by, now=e.occurred_at, config=c)


def _resolve(p: dict[str, Any], by: Decider, e: MemoryEvent, c: DecayConfig) -> object:
    return conflict_resolve(conflict_id=conflict_of(existing=p["existing"], new=p["new"]),
                            decision=p["decision"], note=p["note"], by=by, now=e.occurred_at)


def _merge(p: dict[str, Any], by: Decider, e: MemoryEvent, c: DecayConfig) -> object:
    return entity_merge_decide(merged_key=p["merged"], survivor_key=p["survivor"], by=by,
                               now=e.occurred_at, config=c)


def _split(p: dict[str, Any], by: Decider, e: MemoryEvent, c: DecayConfig) -> object:
    return entity_merge_split(merge_id=merge_unsplit(merged=p["merged"], survivor=p["survivor"]),
                              by=by, now=e.occurred_at, config=c)


def _pin(p: dict[str, Any], by: Decider, e: MemoryEvent, c: DecayConfig) -> object:
    return entity_pin(key=p["entity"], by=by, now=e.occurred_at)


def _unpin(p: dict[str, Any], by: Decider, e: MemoryEvent, c: DecayConfig) -> object:
    return entity_unpin(key=p["entity"], by=by, now=e.occurred_at, config=c)


def _feedback(p: dict[str, Any], by: Decider, e: MemoryEvent, c: DecayConfig) -> object:
    return entity_feedback(key=p["entity"], outcome=p["outcome"], by=by, now=e.occurred_at,
                           config=c)


APPLIERS: dict[str, Apply] = {
    Subtype.REVIEW_ACCEPT: _accept, Subtype.REVIEW_KEEP: _keep,
    Subtype.REVIEW_MERGE: _review_merge, Subtype.CONFLICT_RESOLVE: _resolve,
    Subtype.MERGE: _merge, Subtype.SPLIT: _split, Subtype.PIN: _pin, Subtype.UNPIN: _unpin,
    Subtype.FEEDBACK: _feedback,
}


@dataclass
class DecisionReplayReport:
    applied: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # "<event id> <subtype>: why"
    others: dict[str, int] = field(default_factory=dict)  # not graph decisions (proposals)
    retain: RetainReport = field(default_factory=RetainReport)


def retain_report_add(total: RetainReport, report: RetainReport) -> None:
    total.processed += report.processed
    total.gave_up += report.gave_up
    total.chunks.add(report.chunks)


def _retain_through(order_key: str | None, config: DecayConfig, total: RetainReport) -> None:
    if order_key is None:
        return
    while True:
        report = retain_run(upto=order_key, limit=config.retain.batch_size, config=config)
        retain_report_add(total, report)
        if not report.more and not report.processed and not report.gave_up:
            break
    embedding_passes_run(config=config)


def _apply(event: MemoryEvent, config: DecayConfig, report: DecisionReplayReport) -> None:
    apply = APPLIERS.get(event.subtype)
    if apply is None:
        report.others[event.subtype] = report.others.get(event.subtype, 0) + 1
        return
    payload = event.payload if isinstance(event.payload, dict) else {}
    why = ""
    try:
        with decision_replaying(event):
            apply(payload, Decider(event.source, event.actor), event, config)
    except (DomainError, ObjectDoesNotExist, KeyError, TypeError, ValueError) as exc:
        why = f"{type(exc).__name__}: {exc}"
    if why:
        logger.warning("rebuild: decision %s (%s) not replayed: %s", event.id, event.subtype,
                       why)
        report.skipped.append(f"{event.id} {event.subtype}: {why}")
        return
    report.applied[event.subtype] = report.applied.get(event.subtype, 0) + 1


def decision_replay_run(*, config: DecayConfig | None = None) -> DecisionReplayReport:
    """Replay every decision of the raw log, each after what was retained before it."""
    config = config or config_get()
    report = DecisionReplayReport()
    with retain_lock():
        for event in decision_events():
            payload = event.payload if isinstance(event.payload, dict) else {}
            _retain_through(payload.get(RETAINED_THROUGH), config, report.retain)
            _apply(event, config, report)
    return report
