"""actuation's models: target repositories and proposals (docs/actuation.md)."""

from actuation.models.proposals import (
    HELD_STATES,
    DiffType,
    Outcome,
    Proposal,
    ProposalItem,
    ProposalState,
)
from actuation.models.repositories import PullRequestMode, TargetRepository

__all__ = [
    "HELD_STATES",
    "DiffType",
    "Outcome",
    "Proposal",
    "ProposalItem",
    "ProposalState",
    "PullRequestMode",
    "TargetRepository",
]
