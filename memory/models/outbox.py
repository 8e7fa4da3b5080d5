"""The observation outbox (docs/nats.md): one row per stored Observation still to publish on
NATS, written in the transaction that stores it, deleted once JetStream has acked it."""

from __future__ import annotations

from django.db import models

from memory import clock
from memory.limits import ULID_CHARS
from memory.models.events import CURRENT_TXID


class ObservationOutbox(models.Model):
    """Published in (txid, id) order below the commit horizon: no row is ever published
    after a row stored behind it. No foreign key: a rebuild that clears the observations
    leaves rows the drain drops."""

    id = models.BigAutoField(primary_key=True)
    observation_id = models.CharField(max_length=ULID_CHARS, db_collation="C")
    txid = models.BigIntegerField(db_default=CURRENT_TXID, editable=False)
    created_at = models.DateTimeField(default=clock.now)

    class Meta:
        verbose_name = "outbox row"
        indexes = [models.Index(fields=["txid", "id"], name="memory_outbox_position")]

    def __str__(self) -> str:
        return f"outbox {self.id}: {self.observation_id}"
