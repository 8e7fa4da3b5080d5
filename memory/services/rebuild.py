"""`cortex rebuild graph`: Layers 2 and 3 rebuilt from the raw log alone.

Everything derived is cleared (entities, relations, facts, conflicts, review items,
mentions, merges, embeddings, the job's lookup tables, the observations the analyzers
derived and their cursors; never the raw event log), then the producers read the whole
log again in commit order and the Retain Job retains what they observe, in its canonical
order. Observations posted directly (not derived from the log) are kept and retained again.
The decisions of the log (reviews, conflict resolutions, merges, splits, pins, feedback) are
applied in commit order, each where the Retain Job stood when it was taken
(memory.services.decision_replay).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection, transaction

from memory.config import DecayConfig, config_get
from memory.models import Observation, ObservationStatus
from memory.retain.replay import (
    rebuild_clearers,
    rebuild_derived_after,
    rebuild_derived_tables,
    replay_producers,
)
from memory.selectors.graph import graph_digest
from memory.services.decision_replay import (
    DecisionReplayReport,
    decision_replay_run,
    retain_report_add,
)
from memory.services.locks import retain_lock
from memory.services.retain import RetainReport, retain_drain

# One TRUNCATE, no CASCADE: a table of another layer that references these makes
# PostgreSQL refuse and name it, rather than be emptied silently.
DERIVED_TABLES = (
    "memory_contextinjection", "memory_compiledtruth",
    "memory_entitymention", "memory_relationevidence", "memory_factevidence",
    "memory_conflict", "memory_reviewitem_entities", "memory_reviewitem", "memory_fact",
    "memory_entitymerge", "memory_regenerationrequest", "memory_entityembedding",
    "memory_entityalias", "memory_vocabularyterm", "memory_pairfamiliarity",
    "memory_entitytransition", "memory_relationtransition", "memory_relation",
    "memory_memorymention", "memory_memoryembedding", "memory_memory",
    "memory_entity",
)


@dataclass
class RebuildReport:
    observations_deleted: int = 0
    observations_kept: int = 0
    produced: dict[str, int] = field(default_factory=dict)
    retain: RetainReport = field(default_factory=RetainReport)
    decisions: DecisionReplayReport = field(default_factory=DecisionReplayReport)
    digest: str = ""


def graph_clear() -> tuple[int, int]:
    """Clear Layers 2 and 3; (observations deleted, observations kept and made pending)."""
    with retain_lock(), transaction.atomic():
        for clear in rebuild_clearers():  # first: their tables may reference these
            clear()
        with connection.cursor() as cursor:
            # Deferred foreign-key checks still pending in this transaction block TRUNCATE.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            tables = [*rebuild_derived_tables(), *DERIVED_TABLES]
            cursor.execute(f"TRUNCATE {', '.join(tables)}")
        deleted = 0
        for producer in replay_producers():
            deleted += Observation.objects.filter(source__startswith=producer.prefix).delete()[0]
            producer.reset()
        kept = Observation.objects.update(
            status=ObservationStatus.PENDING, schema_fit=None, attempts=0, error="",
            retained_at=None, order_key="")
    return deleted, kept


def graph_rebuild(*, config: DecayConfig | None = None) -> RebuildReport:
    config = config or config_get()
    report = RebuildReport()
    report.observations_deleted, report.observations_kept = graph_clear()
    for producer in replay_producers():
        report.produced[producer.name] = producer.run()
    report.decisions = decision_replay_run(config=config)
    report.retain = report.decisions.retain
    retain_report_add(report.retain, retain_drain(config=config))
    for after in rebuild_derived_after():
        after()
    report.digest = graph_digest()
    return report
