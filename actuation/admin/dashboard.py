"""Actuation's queue on the Cortex dashboard: proposals awaiting the operator's approval."""

from __future__ import annotations

from actuation.models import ProposalState
from actuation.selectors.proposals import proposal_list
from memory.admin.dashboard import ReviewQueue, review_queue_register


def proposals_open() -> int:
    return proposal_list(state=ProposalState.PROPOSED).order_by().count()


review_queue_register("actuation_proposals", ReviewQueue(
    "actuation proposals awaiting approval", proposals_open,
    "admin:actuation_proposal_changelist", f"?state__exact={ProposalState.PROPOSED}"))
