"""Approving and rejecting are raw events too (memory.services.decisions): appended to the
log (source `operator:<username>`, type `decision`, subtype `proposal.approve` or
`proposal.reject`) in the transaction that then changes the proposal. The outcome of an
applied proposal is fed back as a decision of Cortex's own (source `cortex:actuation`), so
that `cortex rebuild graph` replays it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memory.services.decisions import Decider, decider_operator, decision_record
from memory.services.feedback import entity_feedback

ACTUATION = Decider(source="cortex:actuation", name="actuation")


def proposal_decision_record(*, username: str, subtype: str, proposal_id: int,
                             at: datetime, payload: dict[str, Any]) -> str:
    """The raw event's id. Refuses outside a transaction: no change without its event."""
    return decision_record(by=decider_operator(username), subtype=f"proposal.{subtype}",
                           targets={"proposal": proposal_id, **payload}, occurred_at=at)


def outcome_feedback(*, entity_key: str, outcome: str, now: datetime) -> None:
    entity_feedback(key=entity_key, outcome=outcome, by=ACTUATION, now=now)
