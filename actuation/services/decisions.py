"""Approving and rejecting are raw events too: appended to the log (source
`operator:<username>`, type `decision`) in the transaction that then changes the proposal."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import connection

from memory.services.events import event_append_many

DECISION_TYPE = "decision"


def proposal_decision_record(*, username: str, subtype: str, proposal_id: int,
                             at: datetime, payload: dict[str, Any]) -> str:
    """The raw event's id. Refuses outside a transaction: no change without its event."""
    if not connection.in_atomic_block:
        raise RuntimeError("a decision is recorded in the transaction that applies it")
    event = {"source_id": f"proposal:{proposal_id}:{subtype}", "occurred_at": at,
             "type": DECISION_TYPE, "subtype": f"proposal.{subtype}", "actor": username,
             "payload": {"proposal": proposal_id, **payload}}
    (result,) = event_append_many(source=f"operator:{username}", events=[event])
    return result.id
