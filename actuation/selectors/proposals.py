"""Reads of proposals: the queue, one proposal, its pull request body and its outcome line."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from actuation.models import Proposal, ProposalState
from memory.errors import NotFound


def proposal_list(*, state: str | None = None, diff_type: str | None = None,
                  repository: str | None = None) -> QuerySet[Proposal]:
    rows = (Proposal.objects.select_related("repository").prefetch_related("items")
            .order_by("-created_at", "-id"))
    if state:
        rows = rows.filter(state=state)
    if diff_type:
        rows = rows.filter(diff_type=diff_type)
    if repository:
        rows = rows.filter(repository__name=repository)
    return rows


def proposals_waiting(*, repository_id: int) -> list[Proposal]:
    """The repository's proposals waiting for a night's budget, the oldest first."""
    return list(Proposal.objects.filter(repository_id=repository_id,
                                        state=ProposalState.WAITING).order_by("created_at", "id"))


def proposals_waiting_repositories() -> set[int]:
    return set(Proposal.objects.filter(state=ProposalState.WAITING)
               .values_list("repository_id", flat=True).distinct())


def proposal_get(*, proposal_id: int) -> Proposal:
    proposal = Proposal.objects.select_related("repository").filter(pk=proposal_id).first()
    if proposal is None:
        raise NotFound(f"No proposal {proposal_id}.")
    return proposal


FIELDS = ("id", "diff_type", "detector", "state", "file_path", "title", "rationale", "diff",
          "diff_sha256", "content_hash", "evidence", "warnings", "created_at", "decided_by",
          "decided_at", "reject_reason", "superseded_by_id", "branch", "commit_sha", "pr_url",
          "pr_command", "failure_reason", "sessions_since", "recurrences_since", "outcome")


def proposal_as_dict(proposal: Proposal) -> dict[str, Any]:
    """The proposal as plain values (what `cortex actuate show --json` prints)."""
    out = {name: getattr(proposal, name) for name in FIELDS}
    out["repository"] = proposal.repository.name
    out["since_applied"] = proposal_outcome_line(proposal)
    out["items"] = [{"key": i.key, "line": i.line, "evidence": i.evidence,
                     "dropped": i.dropped} for i in proposal.items.all()]
    return out


def proposal_outcome_line(proposal: Proposal) -> str:
    """"since applied: 0 recurrences in 14 sessions" (empty before it is applied)."""
    if proposal.state != ProposalState.APPLIED:
        return ""
    line = (f"since applied: {proposal.recurrences_since} recurrence"
            f"{'' if proposal.recurrences_since == 1 else 's'} in {proposal.sessions_since} "
            f"session{'' if proposal.sessions_since == 1 else 's'}")
    if proposal.outcome:
        line += f" ({proposal.get_outcome_display()})"
    return line


def proposal_pr_body(proposal: Proposal) -> str:
    evidence = proposal.evidence or {}
    quotes = [f"> {q.get('text', '')} (said by {q.get('by', '?')}, event {q.get('event', '')})"
              for q in evidence.get("quotes", [])]
    entities = [f"- `{e.get('key', '')}` (strength {e.get('strength', 0):.2f})"
                for e in evidence.get("entities", [])]
    lines = [
        f"Proposed by Cortex (proposal #{proposal.pk}, {proposal.get_diff_type_display()}, "
        f"detector `{proposal.detector}`), approved by {proposal.decided_by}.",
        "", "## Why", "", proposal.rationale, "",
        "## Evidence", "",
        f"{len(evidence.get('sessions', []))} sessions, {len(evidence.get('events', []))} raw "
        "events. What the transcripts said, quoted (untrusted text, shown as evidence only):",
        "", *(quotes or ["> (no quotation)"]), "", "Grounding entities:", "", *entities, "",
        "## How to reject", "",
        "Close this pull request without merging and delete its branch; nothing else was "
        "changed. Cortex will not propose the same change again once it is rejected in its "
        "queue (`cortex actuate reject ID --reason TEXT`).",
    ]
    if proposal.warnings:
        lines += ["", "## Warnings", "", *(f"- {w}" for w in proposal.warnings)]
    return "\n".join(lines) + "\n"
