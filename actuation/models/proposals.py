"""A proposed change to a file that steers the agents, and its state machine:
waiting -> proposed -> approved -> applied | failed; proposed -> rejected | superseded;
waiting -> superseded. A proposal is made of items (the rules of an allowlist proposal, the
lines of a pitfalls section): the operator may drop some before approving, and a dropped
item, like every item of a rejected proposal, is never proposed again."""

from __future__ import annotations

from typing import Any

from django.db import models
from django_fsm import FSMField, FSMModelMixin, transition

from actuation.models.repositories import TargetRepository
from memory import clock
from memory.models import Entity


class DiffType(models.TextChoices):
    CLAUDE_MD = "claude_md", "CLAUDE.md"
    MEMORY_ENTRY = "memory_entry", "memory entry"
    SKILL = "skill", "skill"
    ALLOWLIST = "allowlist", "allowlist (a capability grant)"


class ProposalState(models.TextChoices):
    # Past the night's budget of new proposals for its repository: proposed a later night.
    WAITING = "waiting"
    PROPOSED = "proposed"
    APPROVED = "approved"
    APPLIED = "applied"
    REJECTED = "rejected"
    FAILED = "failed"
    SUPERSEDED = "superseded"


OPEN_STATES = (ProposalState.PROPOSED, ProposalState.APPROVED)
# A change Cortex still holds (one row per change): waiting, in the queue, or approved.
HELD_STATES = (ProposalState.WAITING, *OPEN_STATES)


class Outcome(models.TextChoices):
    PENDING = "", "not judged yet"
    POSITIVE = "positive", "the pattern stopped"
    NEGATIVE = "negative", "the pattern went on"


class Proposal(FSMModelMixin, models.Model):
    diff_type = models.CharField(max_length=16, choices=DiffType.choices)
    detector = models.CharField(max_length=64)
    repository = models.ForeignKey(TargetRepository, on_delete=models.PROTECT,
                                   related_name="proposals")
    file_path = models.CharField(max_length=500)
    section = models.CharField(max_length=200, blank=True, default="",
                               help_text="The owned section of the file its lines go in.")
    pattern_key = models.CharField(max_length=300,
                                   help_text="What recurred, as the detector names it.")
    short_name = models.SlugField(max_length=48)
    title = models.CharField(max_length=300)
    rationale = models.TextField()
    diff = models.TextField()
    diff_sha256 = models.CharField(max_length=64)
    content_hash = models.CharField(max_length=64, db_index=True,
                                    help_text="The change itself: repository, file, lines.")
    base_sha256 = models.CharField(max_length=64, blank=True, default="",
                                   help_text="The file's content the diff was made against.")
    evidence = models.JSONField(default=dict, blank=True)
    warnings = models.JSONField(default=list, blank=True)
    entities = models.ManyToManyField(Entity, related_name="+", blank=True)
    state = FSMField(default=ProposalState.PROPOSED, choices=ProposalState.choices,
                     protected=True)
    created_at = models.DateTimeField(default=clock.now)
    decided_by = models.CharField(max_length=150, blank=True, default="")
    decided_at = models.DateTimeField(null=True, blank=True)
    reject_reason = models.TextField(blank=True, default="")
    superseded_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="+")
    applied_at = models.DateTimeField(null=True, blank=True)
    branch = models.CharField(max_length=300, blank=True, default="")
    commit_sha = models.CharField(max_length=64, blank=True, default="")
    pr_url = models.CharField(max_length=500, blank=True, default="")
    pr_command = models.TextField(blank=True, default="")
    failure_reason = models.TextField(blank=True, default="")
    # Did it help? Counted by the detector after the change landed.
    recurrences_before = models.PositiveIntegerField(default=0)
    sessions_since = models.PositiveIntegerField(default=0)
    recurrences_since = models.PositiveIntegerField(default=0)
    outcome = models.CharField(max_length=8, choices=Outcome.choices, blank=True, default="")
    outcome_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["content_hash"], name="proposal_one_open_per_change",
                                    condition=models.Q(state__in=["waiting", "proposed",
                                                                  "approved"])),
        ]
        indexes = [models.Index(fields=["state", "created_at"], name="proposal_queue")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.diff_type} {self.title}"

    @transition(field=state, source=ProposalState.PROPOSED, target=ProposalState.APPROVED)
    def approve(self, *, by: str, at: Any) -> None:
        self.decided_by, self.decided_at = by, at

    @transition(field=state, source=ProposalState.PROPOSED, target=ProposalState.REJECTED)
    def reject(self, *, by: str, at: Any, reason: str) -> None:
        self.decided_by, self.decided_at, self.reject_reason = by, at, reason

    @transition(field=state, source=[ProposalState.PROPOSED, ProposalState.WAITING],
                target=ProposalState.SUPERSEDED)
    def supersede(self, *, by: Proposal) -> None:
        self.superseded_by = by

    @transition(field=state, source=ProposalState.WAITING, target=ProposalState.PROPOSED)
    def propose(self) -> None:
        """Its turn came: within a later night's budget."""

    @transition(field=state, source=ProposalState.APPROVED, target=ProposalState.APPLIED)
    def mark_applied(self, *, at: Any, branch: str, commit_sha: str, pr_url: str,
                     pr_command: str) -> None:
        self.applied_at, self.branch, self.commit_sha = at, branch, commit_sha
        self.pr_url, self.pr_command = pr_url, pr_command

    @transition(field=state, source=ProposalState.APPROVED, target=ProposalState.FAILED)
    def mark_failed(self, *, reason: str) -> None:
        self.failure_reason = reason

    @property
    def is_open(self) -> bool:
        return self.state in OPEN_STATES


class ProposalItem(models.Model):
    """One rule or line of a proposal, with its own evidence. `key` names it across nights
    (the permission rule, the root cause's key): a dropped item, or one of a rejected
    proposal, is not proposed again for the repository."""

    proposal = models.ForeignKey(Proposal, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveSmallIntegerField(default=0)
    key = models.CharField(max_length=300)
    line = models.TextField(help_text="What it adds to the file.")
    evidence = models.JSONField(default=dict, blank=True)
    dropped = models.BooleanField(default=False)
    dropped_by = models.CharField(max_length=150, blank=True, default="")
    dropped_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["proposal", "position"]
        constraints = [models.UniqueConstraint(fields=["proposal", "key"],
                                               name="proposal_item_once")]
        indexes = [models.Index(fields=["key"], name="proposal_item_key")]

    def __str__(self) -> str:
        return f"#{self.proposal_id} {self.key}"
