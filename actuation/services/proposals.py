"""Proposals: submitted by the detectors (never twice while one is held, never again once
rejected, a newer one for the same file and pattern superseding an older one), in the queue
or waiting for a later night's budget, narrowed (items dropped), approved or rejected by an
operator (a raw event first), then applied by a task."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection
from datetime import datetime
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction
from django_fsm import can_proceed

from actuation import gitops
from actuation.detectors.base import Draft
from actuation.formats.allowlist import SettingsInvalid
from actuation.formats.diff import added_lines, change_hash, sha256_text, unified_diff
from actuation.formats.items import NotNarrowable, items_after, items_title
from actuation.models import HELD_STATES, Proposal, ProposalItem, ProposalState
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
    WAITING = "waiting"
    OPEN = "already_open"
    HELD = "already_waiting"
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


def proposal_known(*, draft: Draft, grounding: set[int]) -> SubmitResult | None:
    """What becomes of the draft when it is no new proposal: empty, the same change held or
    decided before, or not grounded now; None when it is new."""
    diff = unified_diff(path=draft.file_path, before=draft.before, after=draft.after)
    if not diff:
        return SubmitResult(Submitted.EMPTY, None, "")
    content_hash = draft_content_hash(draft, diff)
    same = {state: pk for pk, state in Proposal.objects.filter(
        content_hash=content_hash).values_list("pk", "state")}
    for state, outcome in ((ProposalState.REJECTED, Submitted.REJECTED),
                           (ProposalState.PROPOSED, Submitted.OPEN),
                           (ProposalState.APPROVED, Submitted.OPEN),
                           (ProposalState.WAITING, Submitted.HELD),
                           (ProposalState.APPLIED, Submitted.APPLIED)):
        if state in same:
            return SubmitResult(outcome, Proposal.objects.get(pk=same[state]), content_hash)
    ids = {g.id for g in draft.grounding}
    if not ids or not ids <= grounding:
        return SubmitResult(Submitted.UNGROUNDED, None, content_hash)
    return None


@transaction.atomic
def proposal_submit(*, draft: Draft, now: datetime | None = None,
                    config: DecayConfig | None = None, grounding: set[int] | None = None,
                    waiting: bool = False) -> SubmitResult:
    """`grounding`: the entities known to ground a proposal now (`entities_grounding`);
    computed here when not given. `waiting`: past the night's budget, it waits."""
    now, config = now or clock.now(), config or config_get()
    if grounding is None:
        grounding = entities_grounding(ids={g.id for g in draft.grounding}, now=now,
                                       config=config)
    if (known := proposal_known(draft=draft, grounding=grounding)) is not None:
        return known
    diff = unified_diff(path=draft.file_path, before=draft.before, after=draft.after)
    content_hash = draft_content_hash(draft, diff)
    proposal = Proposal.objects.create(
        diff_type=draft.diff_type, detector=draft.detector, repository=draft.repository,
        file_path=draft.file_path, section=draft.section, pattern_key=draft.pattern_key,
        short_name=short_name_of(draft.short_name), title=draft.title[:300],
        rationale=draft.rationale, diff=diff, diff_sha256=sha256_text(diff),
        content_hash=content_hash, base_sha256=sha256_text(draft.before or ""),
        evidence=draft.evidence(), warnings=draft.warnings, created_at=now,
        recurrences_before=draft.weight[0],
        state=ProposalState.WAITING if waiting else ProposalState.PROPOSED,
    )
    proposal.entities.set([g.id for g in draft.grounding])
    ProposalItem.objects.bulk_create([
        ProposalItem(proposal=proposal, position=n, key=item.key[:300], line=item.line,
                     evidence=item.evidence) for n, item in enumerate(draft.items)])
    superseded = _supersede(proposal)
    return SubmitResult(Submitted.WAITING if waiting else Submitted.CREATED, proposal,
                        content_hash, superseded)


@transaction.atomic
def proposal_promote(*, proposal_id: int) -> Proposal:
    """A waiting proposal's turn: into the queue, superseding the older one of its pattern."""
    proposal = _locked(proposal_id)
    proposal.propose()
    proposal.save()
    _supersede(proposal)
    return proposal


def _supersede(newer: Proposal) -> int:
    """A newer proposal in the queue supersedes the older ones of its pattern (in the queue
    or waiting); a newer waiting one, only the older waiting ones."""
    states = ([ProposalState.WAITING] if newer.state == ProposalState.WAITING
              else [ProposalState.PROPOSED, ProposalState.WAITING])
    older = (Proposal.objects.select_for_update()
             .filter(repository=newer.repository, file_path=newer.file_path,
                     pattern_key=newer.pattern_key, state__in=states,
                     created_at__lte=newer.created_at)
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


def _drop_keys(keys: Collection[str]) -> list[str]:
    wanted = list(dict.fromkeys(k.strip() for k in keys if k.strip()))
    if not wanted:
        raise Invalid("Name the items to drop.", fields={"drop": "required"})
    return wanted


def _narrowed(proposal: Proposal, kept: list[ProposalItem], config: DecayConfig) -> str:
    """The proposal's diff with only the kept items, against the file as it is now."""
    repository = proposal.repository
    before = gitops.file_at(Path(repository.path), ref=repository.default_branch,
                            path=proposal.file_path,
                            timeout=float(config.actuation.command_timeout_seconds))
    try:
        after = items_after(diff_type=proposal.diff_type, before=before,
                            section=proposal.section, lines=[i.line for i in kept],
                            max_lines=config.actuation.claude_md.max_lines)
    except NotNarrowable as exc:
        raise Invalid(str(exc), fields={"drop": "this change has no items to drop"}) from None
    except SettingsInvalid as exc:
        raise Refused(f"{proposal.file_path} is no longer a settings file Cortex can add to: "
                      f"{exc}", code="file_changed") from None
    if after is None:
        raise Refused("The items kept are all in the file already: reject the proposal.",
                      code="nothing_left")
    proposal.base_sha256 = sha256_text(before or "")
    return unified_diff(path=proposal.file_path, before=before, after=after)


@transaction.atomic
def proposal_items_drop(*, proposal_id: int, keys: Collection[str], by: str,
                        now: datetime | None = None,
                        config: DecayConfig | None = None) -> Proposal:
    """The items named by `keys` dropped from a proposal in the queue, by the operator `by`
    (a raw event first): its diff is made again with the items kept, and a dropped item is
    never proposed again for the repository."""
    now, config = now or clock.now(), config or config_get()
    wanted = _drop_keys(keys)
    operator_check(username=by)
    proposal = _locked(proposal_id)
    _decidable(proposal, "approve")
    items = [i for i in proposal.items.order_by("position") if not i.dropped]
    unknown = [k for k in wanted if k not in {i.key for i in items}]
    if unknown:
        raise Invalid(f"Not an item of proposal {proposal.pk}: {unknown[0][:200]}",
                      fields={"drop": "unknown item"})
    kept = [i for i in items if i.key not in wanted]
    if not kept:
        raise Invalid("Dropping every item leaves nothing to approve: reject the proposal.",
                      fields={"drop": "would drop every item"})
    diff = _narrowed(proposal, kept, config)
    content_hash = change_hash(repository=proposal.repository.name, path=proposal.file_path,
                               diff_type=proposal.diff_type, added=added_lines(diff))
    if Proposal.objects.filter(content_hash=content_hash, state__in=HELD_STATES).exclude(
            pk=proposal.pk).exists():
        raise Refused("Another proposal holds that same change.", code="duplicate")
    proposal_decision_record(username=by, subtype="drop", proposal_id=proposal.pk, at=now,
                             payload={"dropped": wanted, "content_hash": content_hash})
    ProposalItem.objects.filter(proposal=proposal, key__in=wanted).update(
        dropped=True, dropped_by=by, dropped_at=now)
    proposal.diff, proposal.diff_sha256, proposal.content_hash = (diff, sha256_text(diff),
                                                                  content_hash)
    proposal.title = items_title(diff_type=proposal.diff_type, keys=[i.key for i in kept],
                                 lines=[i.line for i in kept])[:300]
    recurrence = dict((proposal.evidence or {}).get("recurrence") or {})
    if "entities" in recurrence:
        recurrence["entities"] = [i.evidence.get("entity") for i in kept
                                  if i.evidence.get("entity")]
    proposal.evidence = {**(proposal.evidence or {}), "recurrence": recurrence}
    proposal.save()
    return proposal


@transaction.atomic
def proposal_approve(*, proposal_id: int, by: str, now: datetime | None = None,
                     drop: Collection[str] = ()) -> Proposal:
    """Approved by the operator `by`, without the items named in `drop` (dropped first, in
    the same transaction); the apply task is queued once this commits."""
    now = now or clock.now()
    operator_check(username=by)
    if drop:
        proposal_items_drop(proposal_id=proposal_id, keys=drop, by=by, now=now)
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
