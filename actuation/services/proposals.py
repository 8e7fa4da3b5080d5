"""Proposals: submitted by the detectors (never twice while one is open, never again once
rejected, a newer one for the same file and pattern superseding an open one), approved or
rejected by an operator (a raw event first), then applied by a task."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django_fsm import can_proceed

from actuation.detectors.base import Draft
from actuation.formats.diff import added_lines, change_hash, sha256_text, unified_diff
from actuation.models import Proposal, ProposalState
from actuation.services.decisions import proposal_decision_record
from memory import clock
from memory.config import DecayConfig, config_get
from memory.errors import Invalid, NotFound, Refused
from memory.models import Entity, EntityStatus
from memory.queueing import task_enqueue
from memory.selectors.entities import STRENGTH_NOW, entity_with_strength

APPLY_TASK = "actuation.proposal_apply"
MAX_REASON = 2000


class Submitted:
    CREATED = "created"
    OPEN = "already_open"
    REJECTED = "rejected_before"
    APPLIED = "applied_before"
    UNGROUNDED = "ungrounded"
    EMPTY = "empty"


@dataclasses.dataclass(frozen=True)
class SubmitResult:
    outcome: str
    proposal: Proposal | None
    content_hash: str
    superseded: int = 0


def short_name_of(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")[:40].strip("-") or "change"


def entities_grounding(*, ids: Collection[int], now: datetime,
                       config: DecayConfig) -> set[int]:
    """Which of these entities may ground a proposal now: active, at or above the injection
    threshold (one query for a whole detection)."""
    if not ids:
        return set()
    rows = entity_with_strength(now=now, config=config, queryset=Entity.objects.filter(
        id__in=set(ids), status=EntityStatus.ACTIVE))
    strong = rows.filter(**{f"{STRENGTH_NOW}__gte": config.actuation.ground_strength})
    return set(strong.values_list("id", flat=True))


def draft_content_hash(draft: Draft, diff: str) -> str:
    return change_hash(repository=draft.repository.name, path=draft.file_path,
                       diff_type=draft.diff_type, added=added_lines(diff))


@transaction.atomic
def proposal_submit(*, draft: Draft, now: datetime | None = None,
                    config: DecayConfig | None = None,
                    grounding: set[int] | None = None) -> SubmitResult:
    """`grounding`: the entities known to ground a proposal now (`entities_grounding`);
    computed here when not given."""
    now, config = now or clock.now(), config or config_get()
    diff = unified_diff(path=draft.file_path, before=draft.before, after=draft.after)
    if not diff:
        return SubmitResult(Submitted.EMPTY, None, "")
    content_hash = draft_content_hash(draft, diff)
    same = {state: pk for pk, state in Proposal.objects.filter(
        content_hash=content_hash).values_list("pk", "state")}
    for state, outcome in ((ProposalState.REJECTED, Submitted.REJECTED),
                           (ProposalState.PROPOSED, Submitted.OPEN),
                           (ProposalState.APPROVED, Submitted.OPEN),
                           (ProposalState.APPLIED, Submitted.APPLIED)):
        if state in same:
            return SubmitResult(outcome, Proposal.objects.get(pk=same[state]), content_hash)
    ids = {g.id for g in draft.grounding}
    if grounding is None:
        grounding = entities_grounding(ids=ids, now=now, config=config)
    if not ids or not ids <= grounding:
        return SubmitResult(Submitted.UNGROUNDED, None, content_hash)
    proposal = Proposal.objects.create(
        diff_type=draft.diff_type, detector=draft.detector, repository=draft.repository,
        file_path=draft.file_path, pattern_key=draft.pattern_key,
        short_name=short_name_of(draft.short_name), title=draft.title[:300],
        rationale=draft.rationale, diff=diff, diff_sha256=sha256_text(diff),
        content_hash=content_hash, base_sha256=sha256_text(draft.before or ""),
        evidence=draft.evidence(), warnings=draft.warnings, created_at=now,
        recurrences_before=len({o.session for o in draft.occurrences if o.session}),
    )
    proposal.entities.set([g.id for g in draft.grounding])
    superseded = _supersede(proposal)
    return SubmitResult(Submitted.CREATED, proposal, content_hash, superseded)


def _supersede(newer: Proposal) -> int:
    older = (Proposal.objects.select_for_update()
             .filter(repository=newer.repository, file_path=newer.file_path,
                     pattern_key=newer.pattern_key, state=ProposalState.PROPOSED)
             .exclude(pk=newer.pk))
    count = 0
    for proposal in older:
        proposal.supersede(by=newer)
        proposal.save()
        count += 1
    return count


def operator_check(*, username: str) -> str:
    """The username, when it names an active operator (a staff user); else Refused."""
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None or not user.is_staff:
        raise Refused("Only an operator may decide on a proposal.", code="not_an_operator",
                      fields={"by": "not an active operator"})
    return username


def _locked(proposal_id: int) -> Proposal:
    proposal = Proposal.objects.select_for_update().filter(pk=proposal_id).first()
    if proposal is None:
        raise NotFound(f"No proposal {proposal_id}.")
    return proposal


def _decidable(proposal: Proposal, transition: str) -> None:
    if not can_proceed(getattr(proposal, transition)):
        raise Refused(f"Proposal {proposal.pk} is {proposal.state}: it cannot be "
                      f"{transition}d.", code="wrong_state", fields={"state": proposal.state})


@transaction.atomic
def proposal_approve(*, proposal_id: int, by: str, now: datetime | None = None) -> Proposal:
    """Approved by the operator `by`; the apply task is queued once this commits."""
    now = now or clock.now()
    operator_check(username=by)
    proposal = _locked(proposal_id)
    _decidable(proposal, "approve")
    if sha256_text(proposal.diff) != proposal.diff_sha256:
        raise Refused("The proposal's diff no longer matches its hash.", code="diff_altered")
    proposal_decision_record(username=by, subtype="approve", proposal_id=proposal.pk, at=now,
                             payload={"content_hash": proposal.content_hash,
                                      "diff_sha256": proposal.diff_sha256})
    proposal.approve(by=by, at=now)
    proposal.save()
    task_enqueue(APPLY_TASK, proposal_id=proposal.pk)
    return proposal


@transaction.atomic
def proposal_reject(*, proposal_id: int, by: str, reason: str,
                    now: datetime | None = None) -> Proposal:
    """Rejected with a reason: the same change (by content hash) is never proposed again."""
    now = now or clock.now()
    reason = reason.strip()
    if not reason:
        raise Invalid("A rejection needs a reason.", fields={"reason": "required"})
    if len(reason) > MAX_REASON:
        raise Invalid("The reason is too long.", fields={"reason": f"at most {MAX_REASON}"})
    operator_check(username=by)
    proposal = _locked(proposal_id)
    _decidable(proposal, "reject")
    proposal_decision_record(username=by, subtype="reject", proposal_id=proposal.pk, at=now,
                             payload={"content_hash": proposal.content_hash, "reason": reason})
    proposal.reject(by=by, at=now, reason=reason)
    proposal.save()
    return proposal
