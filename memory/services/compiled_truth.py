"""Layer 3 writes (docs/compiled-truth.md): new compiled-truth versions, in batches.

Per batch of entities: load their snapshots (`selectors.compiled_snapshots`), render them
(`memory.compiled`, pure), take ids for the new versions from the sequence, point each
current version to its successor, insert the new ones in one statement, then write the
files. The successor ids exist before the rows do: the `superseded_by` foreign key is
checked at commit, and the partial unique index (one current version per entity) never
sees two. Writers of versions take one transaction-level advisory lock, so the sleep cycle
and a rebuild never number the same version twice.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection, transaction

from memory import clock
from memory.compiled.render import compiled_render
from memory.compiled.snapshot import Snapshot
from memory.config import DecayConfig, config_get
from memory.errors import Busy, NotFound, Refused
from memory.models import CompiledTrigger, CompiledTruth, Entity, EntityStatus
from memory.selectors.compiled_snapshots import compiled_snapshots
from memory.selectors.compiled_truth import (
    CompiledState,
    compiled_active_count,
    compiled_states,
)
from memory.services.compiled_files import Document, compiled_files_write
from memory.sleep.registry import StepContext, sleep_step

COMPILED_LOCK_KEY = 0x636F7274_0007
PHASES = ("select", "load", "render", "insert", "files")


@dataclass
class CompiledReport:
    evaluated: int = 0
    changed: int = 0
    written: int = 0
    files: int = 0
    requests_consumed: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PHASES, 0.0))

    def counts(self) -> dict[str, int]:
        """The sleep cycle's record: counts, reasons and phase durations (ms), prefixed."""
        out = {"compiled_evaluated": self.evaluated, "compiled_changed": self.changed,
               "compiled_written": self.written, "compiled_files": self.files,
               "compiled_requests_consumed": self.requests_consumed}
        out |= {f"compiled_because_{k}": v for k, v in sorted(self.reasons.items())}
        out |= {f"compiled_{k}_ms": round(v * 1000) for k, v in self.seconds.items()}
        return out


class _Timer:
    def __init__(self, report: CompiledReport, phase: str) -> None:
        self.report, self.phase = report, phase

    def __enter__(self) -> None:
        self.began = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.report.seconds[self.phase] += time.perf_counter() - self.began


def _lock(*, wait: bool) -> None:
    with connection.cursor() as cursor:
        if wait:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [COMPILED_LOCK_KEY])
            return
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [COMPILED_LOCK_KEY])
        row = cursor.fetchone()
    if not row or not row[0]:
        raise Busy("Compiled truths are being regenerated; try again in a minute.")


def _batches(states: Sequence[CompiledState], size: int) -> Iterator[Sequence[CompiledState]]:
    for start in range(0, len(states), size):
        yield states[start:start + size]


def _allocate_ids(count: int) -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, 'id')) "
                       "FROM generate_series(1, %s)", [CompiledTruth._meta.db_table, count])
        return [row[0] for row in cursor.fetchall()]


_SUPERSEDE = """
UPDATE memory_compiledtruth c SET superseded_by_id = v.next
FROM unnest(%s::bigint[], %s::bigint[]) AS v(entity_id, next)
WHERE c.entity_id = v.entity_id AND c.superseded_by_id IS NULL
"""

_INSERT = """
INSERT INTO memory_compiledtruth (id, entity_id, version, markdown, as_of, strength, pinned,
    facts_count, facts_digest, relations_count, relations_digest, memories_count,
    memories_digest, reasons, trigger, created_at, superseded_by_id)
SELECT v.id, v.entity_id, v.version, v.markdown, %s, v.strength, v.pinned, v.fn, v.fd, v.rn,
       v.rd, v.mn, v.md, string_to_array(v.reasons, ','), %s, %s, NULL
FROM unnest(%s::bigint[], %s::bigint[], %s::int[], %s::text[], %s::float8[], %s::bool[],
            %s::int[], %s::text[], %s::int[], %s::text[], %s::int[], %s::text[], %s::text[])
     AS v(id, entity_id, version, markdown, strength, pinned, fn, fd, rn, rd, mn, md, reasons)
"""


def _insert(states: Sequence[CompiledState], markdowns: list[str], *, now: datetime,
            trigger: str, extra: tuple[str, ...]) -> None:
    ids = _allocate_ids(len(states))
    with connection.cursor() as cursor:
        cursor.execute(_SUPERSEDE, [[s.entity_id for s in states], ids])
        cursor.execute(_INSERT, [
            now, trigger, clock.now(), ids, [s.entity_id for s in states],
            [s.next_version for s in states], markdowns, [s.strength for s in states],
            [s.pinned for s in states], [s.facts_count for s in states],
            [s.facts_digest for s in states], [s.relations_count for s in states],
            [s.relations_digest for s in states], [s.memories_count for s in states],
            [s.memories_digest for s in states],
            [",".join((*extra, *s.reasons)) for s in states]])


def _documents(snapshots: list[Snapshot], markdowns: list[str]) -> list[Document]:
    return [Document(namespace=s.entity.namespace, slug=s.entity.slug, markdown=md)
            for s, md in zip(snapshots, markdowns, strict=True)]


def _generate(states: Sequence[CompiledState], *, now: datetime, config: DecayConfig,
              trigger: str, report: CompiledReport, extra: tuple[str, ...] = ()) -> None:
    quote_chars = config.compiled.quote_chars
    for batch in _batches(states, config.compiled.batch_size):
        with _Timer(report, "load"):
            snapshots = compiled_snapshots(states=batch, now=now, config=config)
        with _Timer(report, "render"):
            markdowns = [compiled_render(s, quote_chars=quote_chars) for s in snapshots]
        with _Timer(report, "insert"):
            _insert(batch, markdowns, now=now, trigger=trigger, extra=extra)
        with _Timer(report, "files"):
            report.files += compiled_files_write(_documents(snapshots, markdowns))
        report.written += len(batch)
        report.reasons.update(r for s in batch for r in (*extra, *s.reasons))


def _consume_requests(*, now: datetime) -> int:
    with connection.cursor() as cursor:
        cursor.execute("UPDATE memory_regenerationrequest SET consumed_at = %s "
                       "WHERE consumed_at IS NULL", [now])
        return int(cursor.rowcount)


def compiled_truth_sleep(*, now: datetime, config: DecayConfig) -> CompiledReport:
    """The sleep cycle's step: every active entity evaluated in one statement, a new version
    for those the rule selects, the Retain Job's open requests consumed. Runs inside the
    step's transaction."""
    report = CompiledReport()
    _lock(wait=True)
    with _Timer(report, "select"):
        report.evaluated = compiled_active_count()
        states = compiled_states(now=now, config=config)
        report.requests_consumed = _consume_requests(now=now)
    report.changed = len(states)
    _generate(states, now=now, config=config, trigger=CompiledTrigger.SLEEP_CYCLE,
              report=report)
    return report


def _entity_by_key(key: str) -> Entity:
    entity = Entity.objects.filter(key=key).only("id", "status", "merged_into").first()
    if entity is None:
        raise NotFound("No entity has this key.", code="entity_not_found",
                       fields={"key": "unknown"})
    if entity.status == EntityStatus.MERGED:
        raise Refused("This entity was merged into another; rebuild the survivor.",
                      code="entity_merged", fields={"key": "merged"})
    return entity


def compiled_truth_rebuild(*, key: str, now: datetime | None = None,
                           config: DecayConfig | None = None,
                           trigger: str = CompiledTrigger.REBUILD,
                           wait: bool = True) -> CompiledTruth:
    """A new version of one entity's document now, whatever the rule says (a faded or
    quarantined entity too: resurrection from the graph and the raw log), and its file.
    Raises NotFound, Refused (merged), Busy (`wait=False` while another writer runs)."""
    config = config or config_get()
    now = now or clock.now()
    entity = _entity_by_key(key)
    with transaction.atomic():
        _lock(wait=wait)
        states = compiled_states(now=now, config=config, entity_ids=[entity.pk],
                                 changed_only=False)
        _generate(states, now=now, config=config, trigger=trigger, report=CompiledReport(),
                  extra=("rebuild",))
    return CompiledTruth.objects.get(entity_id=entity.pk, superseded_by=None)


def _all_ids() -> list[int]:
    return list(Entity.objects.exclude(status=EntityStatus.MERGED).order_by("id")
                .values_list("id", flat=True))


def compiled_truth_rebuild_all(*, now: datetime | None = None,
                               config: DecayConfig | None = None) -> CompiledReport:
    """A new version of every entity not merged away, one transaction per batch."""
    config = config or config_get()
    now = now or clock.now()
    report = CompiledReport()
    ids = _all_ids()
    report.evaluated = len(ids)
    for start in range(0, len(ids), config.compiled.batch_size):
        chunk = ids[start:start + config.compiled.batch_size]
        with transaction.atomic():
            _lock(wait=True)
            with _Timer(report, "select"):
                states = compiled_states(now=now, config=config, entity_ids=chunk,
                                         changed_only=False)
            report.changed += len(states)
            _generate(states, now=now, config=config, trigger=CompiledTrigger.REBUILD,
                      report=report, extra=("rebuild",))
    return report


# The sleep cycle's step (docs/compiled-truth.md): after strengths and weights are stored, a
# new version for each active entity the regeneration rule selects. Registered here, in the
# services layer, because it calls a service (memory/sleep/ holds no service calls).
COMPILED_ORDER = 30


@sleep_step("compiled_truth", order=COMPILED_ORDER)
def compiled_truth_step(ctx: StepContext) -> dict[str, int]:
    return compiled_truth_sleep(now=ctx.now, config=ctx.config).counts()
