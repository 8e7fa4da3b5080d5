"""Did it help? After a proposal is applied its pattern keeps being counted: the sessions
of the repository since, and those in which the pattern recurred. Once enough sessions ran,
the outcome is feedback on the grounding entities: positive when the pattern stopped,
negative when it went on."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from actuation.models import Outcome, Proposal, ProposalState
from actuation.selectors.outcomes import recurrence_sessions, repository_sessions
from actuation.services.decisions import outcome_feedback
from memory.config import DecayConfig


def _judge(proposal: Proposal, config: DecayConfig) -> str:
    cfg = config.actuation.outcome
    if proposal.sessions_since < cfg.min_sessions:
        return ""
    share = proposal.recurrences_since / proposal.sessions_since
    return Outcome.POSITIVE if share <= cfg.max_recurrence_share else Outcome.NEGATIVE


@transaction.atomic
def outcome_update(*, proposal: Proposal, now: datetime, config: DecayConfig) -> bool:
    """Counts refreshed; True when the outcome was judged now (and fed back)."""
    assert proposal.applied_at is not None
    sessions = repository_sessions(repository=proposal.repository, since=proposal.applied_at,
                                   until=now)
    recurred = recurrence_sessions(proposal=proposal, since=proposal.applied_at, until=now)
    proposal.sessions_since, proposal.recurrences_since = len(sessions), len(recurred & sessions)
    judged = False
    if not proposal.outcome and (outcome := _judge(proposal, config)):
        proposal.outcome, proposal.outcome_at, judged = outcome, now, True
        for key in proposal.entities.values_list("key", flat=True):
            outcome_feedback(entity_key=key, outcome=outcome, now=now)
    proposal.save(update_fields=["sessions_since", "recurrences_since", "outcome",
                                 "outcome_at"])
    return judged


def outcomes_update(*, now: datetime, config: DecayConfig) -> int:
    """Every applied proposal's counts; how many outcomes were judged now."""
    applied = Proposal.objects.select_related("repository").filter(
        state=ProposalState.APPLIED, applied_at__lte=now)
    return sum(outcome_update(proposal=p, now=now, config=config) for p in applied)
