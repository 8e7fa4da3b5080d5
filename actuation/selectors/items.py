"""Reads of proposals' items: what the operator already settled for a repository (dropped,
rejected, or approved and on its way into the file), which the detectors leave out."""

from __future__ import annotations

from django.db.models import Q

from actuation.models import ProposalItem, ProposalState

TAKEN = (ProposalState.APPROVED, ProposalState.APPLIED)


def items_settled(*, repository_id: int, detector: str) -> set[str]:
    """The keys of the items of this repository and detector the operator dropped or
    rejected, or approved (kept in a proposal now approved or applied)."""
    rows = ProposalItem.objects.filter(
        proposal__repository_id=repository_id, proposal__detector=detector).filter(
        Q(dropped=True) | Q(proposal__state=ProposalState.REJECTED)
        | Q(proposal__state__in=TAKEN))
    return set(rows.values_list("key", flat=True))


def items_refused(*, repository_id: int, detector: str) -> set[str]:
    """The keys the operator refused: dropped, or in a proposal they rejected."""
    rows = ProposalItem.objects.filter(
        proposal__repository_id=repository_id, proposal__detector=detector).filter(
        Q(dropped=True) | Q(proposal__state=ProposalState.REJECTED))
    return set(rows.values_list("key", flat=True))
