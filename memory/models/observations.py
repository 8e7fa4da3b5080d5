"""The Observation: the typed border between insight (which reads sources) and memory
(which consolidates); docs/observations.md. Insight writes them through
memory.services.observations; the Retain Job moves them out of `pending`."""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models.fields.json import KeyTextTransform
from ulid import ULID

from memory import clock
from memory.limits import (
    NAMESPACE_CHARS,
    OBSERVATION_CATEGORY_CHARS,
    OBSERVATION_TOPIC_CHARS,
    SOURCE_CHARS,
    ULID_CHARS,
)
from memory.models.taxonomy import Valence


def new_observation_id() -> str:
    return str(ULID())


class ObservationStatus(models.TextChoices):
    PENDING = "pending"
    RETAINED = "retained"
    QUARANTINED = "quarantined"
    FAILED = "failed"
    UNHANDLED = "unhandled", "unhandled (no handler for its category and namespace)"


class Observation(models.Model):
    id = models.CharField(primary_key=True, max_length=ULID_CHARS, default=new_observation_id,
                          editable=False)
    # sha256 of (source, category, the producer's key): the same analyzer on the same events
    # yields this key again, and the database keeps one row.
    dedup_key = models.CharField(max_length=64, unique=True, editable=False)
    source = models.CharField(max_length=SOURCE_CHARS)
    timestamp = models.DateTimeField(help_text="When what it observes happened.")
    recorded_at = models.DateTimeField(default=clock.now, editable=False)
    category = models.CharField(max_length=OBSERVATION_CATEGORY_CHARS)
    actors = models.JSONField(default=list, blank=True,
                              help_text='[{"name" or "key", "role"}, ...]')
    topic = models.CharField(max_length=OBSERVATION_TOPIC_CHARS, blank=True, default="")
    sentiment = models.CharField(max_length=10, choices=Valence.choices, default=Valence.NEUTRAL)
    sentiment_score = models.FloatField(default=0.0)
    payload_typed = models.JSONField(default=dict, blank=True)
    correlation_session = models.TextField(blank=True, default="")
    correlation_thread = models.TextField(blank=True, default="")
    correlation_parent = models.TextField(blank=True, default="")
    target_namespace = models.CharField(max_length=NAMESPACE_CHARS)
    event_ids = ArrayField(models.CharField(max_length=ULID_CHARS), default=list, blank=True,
                           help_text="The MemoryEvents it was derived from (provenance).")
    status = models.CharField(max_length=12, choices=ObservationStatus.choices,
                              default=ObservationStatus.PENDING)
    # Filled by the Retain Job.
    schema_fit = models.FloatField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    retained_at = models.DateTimeField(null=True, blank=True)
    # The Retain Job's canonical order, stable on replay: the commit position of the latest
    # event it derives from, then its dedup key (memory.services.retain_order).
    order_key = models.CharField(max_length=160, blank=True, db_default="", default="",
                                 editable=False)

    class Meta:
        indexes = [
            models.Index(fields=["status", "id"], name="memory_obs_status"),
            models.Index(fields=["order_key"], name="memory_obs_pending_order",
                         condition=models.Q(status="pending")),
            models.Index(fields=["category", "target_namespace"], name="memory_obs_category"),
            models.Index(fields=["target_namespace", "id"], name="memory_obs_namespace"),
            models.Index(fields=["timestamp"], name="memory_obs_timestamp"),
            models.Index(KeyTextTransform("counterpart", "payload_typed"),
                         condition=models.Q(category="interaction"),
                         name="memory_obs_counterpart"),
        ]

    def __str__(self) -> str:
        return f"{self.category} {self.target_namespace}: {self.topic[:60]}"

    @property
    def correlation(self) -> dict[str, str]:
        return {
            "session": self.correlation_session,
            "thread": self.correlation_thread,
            "parent": self.correlation_parent,
        }


class RetainAttempt(models.Model):
    """A chunk of observations the Retain Job is trying: written (and committed) before the
    try, deleted in the chunk's own transaction. One still here under the retain lock is a
    chunk whose worker died: its observations count that attempt then (memory.services.retain).
    One row a chunk instead of an UPDATE of each observation's row before every try."""

    observation_ids = ArrayField(models.CharField(max_length=ULID_CHARS))
    started_at = models.DateTimeField(default=clock.now)

    def __str__(self) -> str:
        return f"retain attempt on {len(self.observation_ids)} observations"
