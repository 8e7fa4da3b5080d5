"""Layer 1: the raw event log. Append-only, immutable, idempotent on (source, source_id)."""

from __future__ import annotations

from typing import Any, NoReturn

import pgtrigger
from django.db import models
from django.db.models.functions import Cast

from memory import clock
from memory.event_ids import new_event_ids
from memory.models.fields import PackedJSONField

# pg_current_xact_id() as a bigint: the inserting transaction, the commit-ordered position's
# first half (see memory.selectors.events for why it makes late commits safe to read).
CURRENT_TXID = Cast(
    Cast(models.Func(function="pg_current_xact_id"), models.TextField()),
    models.BigIntegerField(),
)


# Written only by the decision services (memory/services/decisions.py) and replayed by a
# rebuild: posted events may not claim it (they would replay as decisions nobody took).
DECISION_TYPE = "decision"


class EventImmutableError(Exception):
    """Raised when code tries to change or delete a stored event."""


def _refuse(what: str) -> NoReturn:
    raise EventImmutableError(f"MemoryEvent is append-only: {what} is refused.")


def new_event_id() -> str:
    """A ULID, monotonic within the process (see memory.event_ids)."""
    return new_event_ids(1)[0]


class MemoryEventQuerySet(models.QuerySet["MemoryEvent"]):
    def update(self, **kwargs: Any) -> NoReturn:
        _refuse("update")

    def delete(self) -> NoReturn:
        _refuse("delete")

    def bulk_update(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("bulk_update")

    def update_or_create(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("update_or_create")


class MemoryEvent(models.Model):
    # The indexed text columns compare bytewise ("C"): the same order as the database's
    # C.UTF-8, without going through strcoll on every comparison of every index insert.
    id = models.CharField(primary_key=True, max_length=26, default=new_event_id, editable=False,
                          db_collation="C")
    source = models.TextField(db_collation="C")
    source_id = models.TextField(db_collation="C")
    occurred_at = models.DateTimeField()
    recorded_at = models.DateTimeField(default=clock.now)
    type = models.TextField(blank=True, default="", db_collation="C")
    subtype = models.TextField(blank=True, default="", db_collation="C")
    actor = models.TextField(blank=True, default="")
    project = models.TextField(blank=True, default="", db_collation="C")
    correlation_session = models.TextField(blank=True, default="")
    correlation_thread = models.TextField(blank=True, default="")
    correlation_parent = models.TextField(blank=True, default="")
    # Stored lz4-compressed behind a header byte (memory.event_payload): SQL cannot read inside.
    payload = PackedJSONField(default=dict)
    redaction_count = models.PositiveIntegerField(default=0)
    # The id of the inserting transaction, stamped by the database (its default; a trigger
    # overrides any other value a client sends). Readers order by (txid, id).
    txid = models.BigIntegerField(db_default=CURRENT_TXID, editable=False)

    objects = MemoryEventQuerySet.as_manager()

    class Meta:
        verbose_name = "event"
        constraints = [
            models.UniqueConstraint(fields=["source", "source_id"], name="memory_event_source_id"),
        ]
        indexes = [
            models.Index(fields=["txid", "id"], name="memory_event_position"),
            models.Index(fields=["source", "txid", "id"], name="memory_event_source_pos"),
            models.Index(fields=["type", "subtype", "txid", "id"], name="memory_event_type_pos"),
            models.Index(fields=["project", "txid", "id"], name="memory_event_project_pos"),
            models.Index(fields=["occurred_at"], name="memory_event_occurred"),
        ]
        triggers = [
            pgtrigger.Protect(
                name="append_only", operation=pgtrigger.Update | pgtrigger.Delete
            ),
            pgtrigger.Trigger(
                name="no_truncate",
                operation=pgtrigger.Truncate,
                level=pgtrigger.Statement,
                when=pgtrigger.Before,
                func="RAISE EXCEPTION 'pgtrigger: Cannot truncate % (append-only)', TG_TABLE_NAME;",
            ),
            # The column's default stamps the same value, so the trigger's function (a
            # PL/pgSQL call per row, ~12% of an insert's server time) runs only for a row that
            # came with another txid, and overrides it.
            pgtrigger.Trigger(
                name="stamp_txid",
                operation=pgtrigger.Insert,
                when=pgtrigger.Before,
                condition=pgtrigger.Condition(
                    "NEW.txid IS DISTINCT FROM pg_current_xact_id()::text::bigint"
                ),
                func="NEW.txid := pg_current_xact_id()::text::bigint; RETURN NEW;",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source}:{self.source_id}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            _refuse("save of a stored event")
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("delete")

    @property
    def correlation(self) -> dict[str, str]:
        return {
            "session": self.correlation_session,
            "thread": self.correlation_thread,
            "parent": self.correlation_parent,
        }


class EventIdempotencyKey(models.Model):
    """An `Idempotency-Key` an agent sent with a single event, and what the body was."""

    source = models.TextField()
    key = models.CharField(max_length=255)
    body_sha256 = models.CharField(max_length=64)
    event = models.ForeignKey(MemoryEvent, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=clock.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "key"], name="memory_event_idem_key"),
        ]

    def __str__(self) -> str:
        return f"{self.source}:{self.key}"
