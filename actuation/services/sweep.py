"""PostgreSQL is the truth: an approved proposal whose apply task was lost is found here."""

from __future__ import annotations

from actuation.models import Proposal, ProposalState


def approved_unapplied() -> list[int]:
    return list(Proposal.objects.filter(state=ProposalState.APPROVED)
                .order_by("decided_at").values_list("id", flat=True))
