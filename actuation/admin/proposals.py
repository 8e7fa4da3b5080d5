"""The approval queue: filters by type, status and repository; the diff in colour; the
evidence linked; the items of a grouped proposal (its rules, its pitfalls) each with its
evidence and a box to drop it before approving; approve and reject (with a reason) as
actions calling the services, one by one on the proposal's page or in bulk from the list.
Rows change only through services."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.views.decorators.http import require_POST

from actuation.admin.rendering import diff_html, evidence_html, items_html
from actuation.models import DiffType, Proposal
from actuation.selectors.proposals import proposal_outcome_line
from actuation.services.proposals import (
    proposal_approve,
    proposal_items_drop,
    proposal_reject,
)
from memory.admin.base import action_apply


@admin.register(Proposal)
class ProposalAdmin(admin.ModelAdmin[Proposal]):
    list_display = ("id", "title", "kind", "state", "repository", "file_path", "created_at",
                    "decided_by", "outcome_line")
    list_filter = ("diff_type", "state", "repository", "detector")
    search_fields = ("title", "rationale", "pattern_key")
    date_hierarchy = "created_at"
    actions = ["approve_selected", "reject_selected"]
    change_form_template = "admin/actuation/proposal/change_form.html"
    fields = ("title", "kind", "state", "repository", "file_path", "items_to_keep",
              "diff_coloured", "warnings", "rationale", "evidence_linked", "detector",
              "pattern_key", "content_hash", "diff_sha256", "created_at", "decided_by",
              "decided_at", "reject_reason",
              "superseded_by", "branch", "commit_sha", "pr_url", "pr_command",
              "failure_reason", "outcome_line", "outcome")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="type")
    def kind(self, obj: Proposal) -> SafeString:
        if obj.diff_type == DiffType.ALLOWLIST:
            return format_html('<strong style="color:#cf222e">{}</strong>',
                               "allowlist: a capability grant")
        return format_html("{}", obj.get_diff_type_display())

    @admin.display(description="items")
    def items_to_keep(self, obj: Proposal) -> SafeString:
        return items_html(obj, list(obj.items.all()),
                          approve=reverse("admin:actuation_proposal_approve", args=[obj.pk]),
                          drop=reverse("admin:actuation_proposal_drop", args=[obj.pk]))

    @admin.display(description="diff")
    def diff_coloured(self, obj: Proposal) -> SafeString:
        return diff_html(obj.diff)

    @admin.display(description="evidence")
    def evidence_linked(self, obj: Proposal) -> SafeString:
        return evidence_html(obj.evidence or {})

    @admin.display(description="did it help?")
    def outcome_line(self, obj: Proposal) -> str:
        return proposal_outcome_line(obj)

    @admin.action(description="Approve the selected proposals")
    def approve_selected(self, request: HttpRequest, queryset: QuerySet[Proposal]) -> None:
        action_apply(self, request, queryset,
                     lambda p: proposal_approve(proposal_id=p.pk, by=request.user.get_username()),
                     "Approved")

    @admin.action(description="Reject the selected proposals (with a reason)")
    def reject_selected(self, request: HttpRequest,
                        queryset: QuerySet[Proposal]) -> HttpResponse | None:
        reason = str(request.POST.get("reason") or "").strip()
        if "confirm" not in request.POST or not reason:
            context = {**self.admin_site.each_context(request), "proposals": queryset,
                       "opts": self.model._meta, "title": "Reject proposals",
                       "action": "reject_selected",
                       "action_checkbox_name": ACTION_CHECKBOX_NAME}
            return TemplateResponse(request, "admin/actuation/proposal/reject.html", context)
        action_apply(self, request, queryset,
                     lambda p: proposal_reject(proposal_id=p.pk, by=request.user.get_username(),
                                               reason=reason), "Rejected")
        return None

    def get_urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        return [
            path("<int:object_id>/approve/", wrap(require_POST(self.approve_view)),
                 name="actuation_proposal_approve"),
            path("<int:object_id>/reject/", wrap(require_POST(self.reject_view)),
                 name="actuation_proposal_reject"),
            path("<int:object_id>/drop/", wrap(require_POST(self.drop_view)),
                 name="actuation_proposal_drop"),
            *super().get_urls(),
        ]

    def _back(self, object_id: int) -> HttpResponseRedirect:
        return HttpResponseRedirect(reverse("admin:actuation_proposal_change", args=[object_id]))

    def approve_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        """Approve; the items whose box is checked (`drop`) are dropped first."""
        proposal = get_object_or_404(Proposal, pk=object_id)
        drop = request.POST.getlist("drop")
        action_apply(self, request, [proposal],
                     lambda p: proposal_approve(proposal_id=p.pk, by=request.user.get_username(),
                                                drop=drop), "Approved")
        return self._back(object_id)

    def drop_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        """Drop the checked items, without approving yet."""
        proposal = get_object_or_404(Proposal, pk=object_id)
        drop = request.POST.getlist("drop")
        action_apply(self, request, [proposal],
                     lambda p: proposal_items_drop(proposal_id=p.pk, keys=drop,
                                                   by=request.user.get_username()),
                     "Narrowed")
        return self._back(object_id)

    def reject_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        proposal = get_object_or_404(Proposal, pk=object_id)
        reason = str(request.POST.get("reason") or "")
        action_apply(self, request, [proposal],
                     lambda p: proposal_reject(proposal_id=p.pk, by=request.user.get_username(),
                                               reason=reason), "Rejected")
        return self._back(object_id)
