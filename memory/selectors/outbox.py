"""Reading the observation outbox (docs/nats.md): the next rows to publish, in commit order,
each with the Observation as it is published."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models.expressions import RawSQL

from memory.models.observations import Observation
from memory.models.outbox import ObservationOutbox
from memory.selectors.commit_horizon import HORIZON_SQL

PUBLISHED_FIELDS = ("id", "source", "timestamp", "recorded_at", "category", "actors", "topic",
                    "sentiment", "sentiment_score", "payload_typed", "correlation_session",
                    "correlation_thread", "correlation_parent", "target_namespace",
                    "event_ids")


@dataclass(frozen=True)
class OutboxItem:
    outbox_id: int
    observation_id: str
    # The message body; None when the observation is gone (a rebuild cleared it).
    body: dict[str, Any] | None


def observation_message(row: dict[str, Any]) -> dict[str, Any]:
    """An Observation as the bus carries it: its fields as docs/observations.md lists them."""
    body = {name: row[name] for name in PUBLISHED_FIELDS if not name.startswith("correlation")}
    body["timestamp"] = row["timestamp"].isoformat()
    body["recorded_at"] = row["recorded_at"].isoformat()
    body["correlation"] = {"session": row["correlation_session"],
                           "thread": row["correlation_thread"],
                           "parent": row["correlation_parent"]}
    return body


def outbox_batch(*, limit: int) -> list[OutboxItem]:
    """The first `limit` rows in (txid, id) order, only below the commit horizon: a row whose
    transaction may still commit holds back every row after it."""
    if connection.in_atomic_block:  # pg_stat_activity is cached per transaction
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_stat_clear_snapshot()")
    rows = list(ObservationOutbox.objects.filter(txid__lt=RawSQL(HORIZON_SQL, []))
                .order_by("txid", "id").values_list("id", "observation_id")[:limit])
    stored = {row["id"]: row for row in Observation.objects
              .filter(id__in=[observation_id for _pk, observation_id in rows])
              .values(*PUBLISHED_FIELDS)}
    return [OutboxItem(outbox_id=pk, observation_id=observation_id,
                       body=observation_message(stored[observation_id])
                       if observation_id in stored else None)
            for pk, observation_id in rows]


def outbox_count() -> int:
    return ObservationOutbox.objects.count()
