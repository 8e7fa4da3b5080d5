"""The Retain Job's review queues in the admin: dark matter, conflicts, merges (split a wrong
one), facts. Each item shows its evidence (the observation and its raw events); the actions
call memory.services.review and memory.services.merges."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from memory.admin.base import ReadOnlyAdmin, action_apply
from memory.admin.paging import EstimatedCountPaginator
from memory.compiled.text import counted, when
from memory.models import (
    Conflict,
    ConflictStatus,
    EntityMerge,
    Fact,
    FactEvidence,
    Observation,
    ReviewItem,
    ReviewStatus,
)
from memory.selectors.observations import observation_evidence
from memory.services.decisions import Decider, decider_operator
from memory.services.merges import entity_merge_split
from memory.services.review import (
    Decision,
    conflict_resolve,
    review_accept,
    review_keep,
    review_merge,
)

EXCERPT = 160


def _link(obj: Any) -> SafeString:
    if obj is None:
        return SafeString("—")
    meta = obj._meta
    url = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, obj)


def _excerpt(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= EXCERPT else text[:EXCERPT] + "…"


def evidence_html(observations: Iterable[Observation]) -> SafeString:
    """Each observation, then the raw events it was derived from."""
    blocks = []
    for observation in observations:
        events = observation_evidence(observation=observation)
        rows = format_html_join(
            "", '<tr><td><a href="{}">{}</a></td><td>{}</td><td>{}</td><td>{}</td>'
            "<td><code>{}</code></td></tr>",
            ((reverse("admin:memory_memoryevent_change", args=[e.id]), e.id, when(e.occurred_at),
              e.subtype, e.actor, _excerpt(e.payload)) for e in events))
        blocks.append(format_html(
            "<p>{} — {} on {} (schema_fit {}): <em>{}</em></p><table>{}</table>",
            _link(observation), observation.category, observation.target_namespace,
            "—" if observation.schema_fit is None else f"{observation.schema_fit:.3f}",
            observation.topic, rows or SafeString("<tr><td>no raw event</td></tr>")))
    return format_html_join("", "{}", ((block,) for block in blocks)) or SafeString("—")


def _who(request: HttpRequest) -> Decider:
    user = getattr(request, "user", None)
    return decider_operator(str(getattr(user, "username", "") or "operator"))


class MergeTargetForm(ActionForm):
    into_key = forms.CharField(required=False, label="Merge into (entity key)",
                               widget=forms.TextInput(attrs={"size": 40}))


@admin.register(ReviewItem)
class DarkMatterAdmin(ReadOnlyAdmin):
    """Dark matter: what nothing in the graph described yet, quarantined until reviewed."""

    list_display = ("created_at", "observation_link", "category", "topic", "fit", "quarantined",
                    "status")
    list_filter = ("status",)
    list_select_related = ("observation",)
    ordering = ("status", "-created_at")
    paginator = EstimatedCountPaginator
    show_full_result_count = False
    action_form = MergeTargetForm
    actions = ("accept", "keep", "merge")
    fields = ("status", "observation_link", "fit", "quarantined", "resolved_at", "resolved_by",
              "merged_into", "evidence")
    readonly_fields = fields

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None  # the list and its actions; an item itself is read-only

    def get_queryset(self, request: HttpRequest) -> QuerySet[ReviewItem]:
        return super().get_queryset(request).prefetch_related("entities")

    @admin.display(description="observation")
    def observation_link(self, item: ReviewItem) -> SafeString:
        return _link(item.observation)

    @admin.display(description="category")
    def category(self, item: ReviewItem) -> str:
        return item.observation.category

    @admin.display(description="topic")
    def topic(self, item: ReviewItem) -> str:
        return item.observation.topic[:100]

    @admin.display(description="schema_fit", ordering="schema_fit")
    def fit(self, item: ReviewItem) -> str:
        return f"{item.schema_fit:.3f}"

    @admin.display(description="entities (quarantined)")
    def quarantined(self, item: ReviewItem) -> SafeString:
        return format_html_join(", ", "{}", ((_link(e),) for e in item.entities.all())) or \
            SafeString("—")

    @admin.display(description="evidence: the observation and its raw events")
    def evidence(self, item: ReviewItem) -> SafeString:
        return evidence_html([item.observation])

    @admin.action(description="Accept into the graph as normal")
    def accept(self, request: HttpRequest, queryset: QuerySet[ReviewItem]) -> None:
        action_apply(self, request, queryset.filter(status=ReviewStatus.OPEN),
                     lambda item: review_accept(item_id=item.pk, by=_who(request)), "Accepted")

    @admin.action(description="Keep quarantined")
    def keep(self, request: HttpRequest, queryset: QuerySet[ReviewItem]) -> None:
        action_apply(self, request, queryset.filter(status=ReviewStatus.OPEN),
                     lambda item: review_keep(item_id=item.pk, by=_who(request)),
                     "Kept quarantined")

    @admin.action(description="Merge into the entity named below")
    def merge(self, request: HttpRequest, queryset: QuerySet[ReviewItem]) -> None:
        key = request.POST.get("into_key", "").strip()
        if not key:
            self.message_user(request, "Name the entity to merge into (its key).",
                              messages.ERROR)
            return
        action_apply(self, request, queryset.filter(status=ReviewStatus.OPEN),
                     lambda item: review_merge(item_id=item.pk, into_key=key, by=_who(request)),
                     f"Merged into {key}")


def _fact_html(fact: Fact) -> SafeString:
    observations = [e.observation for e in FactEvidence.objects.filter(fact=fact)
                    .select_related("observation").order_by("observation__timestamp")[:10]]
    return format_html("<p><strong>{}</strong> ({}, seen {}, since {})</p>{}", fact,
                       fact.get_status_display(),
                       counted(fact.evidence_count, "time", "times"),
                       fact.first_seen_at.date(), evidence_html(observations))


def _decide(decision: str, description: str) -> Callable[..., None]:
    def action(model_admin: ConflictAdmin, request: HttpRequest,
               queryset: QuerySet[Conflict]) -> None:
        action_apply(model_admin, request, queryset.filter(status=ConflictStatus.OPEN),
                     lambda c: conflict_resolve(conflict_id=c.pk, decision=decision,
                                                by=_who(request)),
                     description)

    action.__name__ = f"resolve_{decision}"
    return admin.action(description=description)(action)


@admin.register(Conflict)
class ConflictAdmin(ReadOnlyAdmin):
    """Contradicting claims on one entity; the newer is contested until resolved."""

    list_display = ("created_at", "entity", "existing", "new", "jaccard", "status")
    list_filter = ("status",)
    list_select_related = ("entity", "existing", "new")
    ordering = ("status", "-created_at")
    paginator = EstimatedCountPaginator
    show_full_result_count = False
    actions = (
        _decide(Decision.KEEP_EXISTING, "Keep the existing claim (reject the new)"),
        _decide(Decision.KEEP_NEW, "Keep the new claim (reject the existing)"),
        _decide(Decision.KEEP_BOTH, "Keep both, as scoped"),
        _decide(Decision.REJECT_NEW, "Reject the new claim"),
    )
    fields = ("status", "entity_link", "jaccard", "resolved_at", "resolved_by", "note",
              "existing_evidence", "new_evidence")
    readonly_fields = fields

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None

    @admin.display(description="entity")
    def entity_link(self, conflict: Conflict) -> SafeString:
        return _link(conflict.entity)

    @admin.display(description="the existing claim and its evidence")
    def existing_evidence(self, conflict: Conflict) -> SafeString:
        return _fact_html(conflict.existing)

    @admin.display(description="the new claim and its evidence")
    def new_evidence(self, conflict: Conflict) -> SafeString:
        return _fact_html(conflict.new)


@admin.register(EntityMerge)
class EntityMergeAdmin(ReadOnlyAdmin):
    """Merges (the dedup pass's and the operator's); split a wrong one."""

    list_display = ("created_at", "merged", "survivor", "reason", "similarity_text",
                    "split_at")
    list_filter = ("reason",)
    list_select_related = ("merged", "survivor")
    search_fields = ("merged__key", "survivor__key")
    ordering = ("-created_at",)
    actions = ("split",)
    fields = ("merged", "survivor", "reason", "similarity_text", "merged_status", "aliases_added",
              "moved_summary", "created_at", "split_at", "split_by")
    readonly_fields = fields

    @admin.display(description="moved")
    def moved_summary(self, obj: EntityMerge) -> str:
        """What the merge moved, counted (the rows themselves are kept to split it again)."""
        moved = obj.moved or {}
        parts = [(len(moved.get(key) or []), one, many) for key, one, many in (
            ("relations_moved", "relation moved", "relations moved"),
            ("relations_folded", "relation folded", "relations folded"),
            ("facts_moved", "fact moved", "facts moved"),
            ("facts_folded", "fact folded", "facts folded"),
            ("conflicts", "conflict", "conflicts"))]
        return ", ".join(counted(n, one, many) for n, one, many in parts)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None

    @admin.display(description="similarity", ordering="similarity")
    def similarity_text(self, obj: EntityMerge) -> str:
        return "-" if obj.similarity is None else f"{obj.similarity:.3f}"

    @admin.action(description="Split (undo the merge)")
    def split(self, request: HttpRequest, queryset: QuerySet[EntityMerge]) -> None:
        action_apply(self, request, queryset.filter(split_at=None),
                     lambda merge: entity_merge_split(merge_id=merge.pk, by=_who(request)), "Split")


@admin.register(Fact)
class FactAdmin(ReadOnlyAdmin):
    list_display = ("entity", "claim", "polarity", "status", "evidence_count", "last_seen_at")
    list_filter = ("status", "polarity", "language")
    list_select_related = ("entity",)
    search_fields = ("claim", "entity__key")
    ordering = ("-last_seen_at",)
    paginator = EstimatedCountPaginator
    show_full_result_count = False
    fields = ("entity_link", "claim", "polarity", "status", "scope", "language", "lemmas",
              "evidence_count", "first_seen_at", "last_seen_at", "evidence")
    readonly_fields = fields

    @admin.display(description="entity")
    def entity_link(self, fact: Fact) -> SafeString:
        return _link(fact.entity)

    @admin.display(description="evidence: observations and their raw events")
    def evidence(self, fact: Fact) -> SafeString:
        return _fact_html(fact)

