"""actuation's models: target repositories and proposals (docs/actuation.md)."""

from actuation.models.proposals import DiffType, Outcome, Proposal, ProposalState
from actuation.models.repositories import PullRequestMode, TargetRepository

__all__ = [
    "DiffType",
    "Outcome",
    "Proposal",
    "ProposalState",
    "PullRequestMode",
    "TargetRepository",
]
