from __future__ import annotations

from typing import Any

from rest_framework import serializers

from actuation.models import DiffType, Proposal, ProposalItem, ProposalState
from actuation.selectors.proposals import proposal_outcome_line


class ProposalItemSerializer(serializers.ModelSerializer[ProposalItem]):
    class Meta:
        model = ProposalItem
        fields = ("key", "line", "evidence", "dropped", "dropped_by", "dropped_at")
        read_only_fields = fields


class ProposalSerializer(serializers.ModelSerializer[Proposal]):
    repository = serializers.CharField(source="repository.name")
    since_applied = serializers.SerializerMethodField()
    items = ProposalItemSerializer(many=True, read_only=True)

    class Meta:
        model = Proposal
        fields = ("id", "diff_type", "detector", "state", "repository", "file_path", "title",
                  "rationale", "diff", "diff_sha256", "content_hash", "evidence", "warnings",
                  "created_at", "decided_by", "decided_at", "reject_reason", "superseded_by",
                  "branch", "commit_sha", "pr_url", "pr_command", "failure_reason",
                  "sessions_since", "recurrences_since", "outcome", "since_applied", "items")
        read_only_fields = fields

    def get_since_applied(self, obj: Proposal) -> str:
        return proposal_outcome_line(obj)


class ProposalQuerySerializer(serializers.Serializer[Any]):
    state = serializers.ChoiceField(choices=ProposalState.choices, required=False)
    diff_type = serializers.ChoiceField(choices=DiffType.choices, required=False)
    repository = serializers.CharField(required=False, max_length=200)


class ApproveSerializer(serializers.Serializer[Any]):
    drop = serializers.ListField(
        child=serializers.CharField(max_length=300), required=False, max_length=1000,
        help_text="The keys of the items (rules, pitfalls) to drop before approving: "
                  "never proposed again.")


class RejectSerializer(serializers.Serializer[Any]):
    reason = serializers.CharField(max_length=2000)
