"""The console's own pages under the entity admin: the recall search box (a search, not a
recall: nothing is reinforced) and the diff between two compiled-truth versions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html_join
from django.utils.safestring import SafeString

from memory.admin.diff import diff_html
from memory.admin.entity_page import strength_text
from memory.errors import DomainError
from memory.selectors.entity_page import compiled_truth_history, compiled_truth_pair
from memory.services.recall import Hit, Unit, recall_run

_CHANGE = {"entity": "admin:memory_entity_change", "memory": "admin:memory_memory_change",
           "fact": "admin:memory_fact_change"}


@dataclass(frozen=True)
class HitRow:
    hit: Hit
    url: str
    strength: str
    relations: SafeString
    provenance: SafeString


def _row(hit: Hit) -> HitRow:
    pk = hit.entity_id if hit.kind == "entity" else hit.ref
    strength = strength_text(hit.strength, pinned=hit.pinned)
    provenance = format_html_join(
        "<br>", '<a href="{}"><code>{}</code></a> {} <code>{}</code>',
        ((reverse("admin:memory_memoryevent_change", args=[p["event_id"]]), p["event_id"],
          p.get("source", ""), p.get("source_id", "")) for p in hit.provenance))
    relations = format_html_join("<br>", "{}", ((r,) for r in hit.relations))
    return HitRow(hit=hit, url=reverse(_CHANGE[hit.kind], args=[pk]), strength=strength,
                  relations=relations, provenance=provenance)


def recall_view(model_admin: admin.ModelAdmin[Any], request: HttpRequest) -> HttpResponse:
    if not model_admin.has_view_permission(request):
        raise PermissionDenied
    query = request.GET.get("q", "").strip()
    unit: Unit = "memory" if request.GET.get("unit") == "memory" else "entity"
    include_faded = request.GET.get("include_faded") == "1"
    rows: list[HitRow] = []
    if query:
        try:
            result = recall_run(query=query, unit=unit, include_faded=include_faded,
                                reinforce=False)
            rows = [_row(hit) for hit in result.hits]
        except DomainError as error:
            model_admin.message_user(request, error.describe(), messages.ERROR)
    context = {**model_admin.admin_site.each_context(request), "opts": model_admin.model._meta,
               "title": "Recall (a search: nothing is reinforced)", "q": query, "unit": unit,
               "include_faded": include_faded, "rows": rows, "searched": bool(query)}
    return TemplateResponse(request, "admin/memory/entity/recall.html", context)


def _version(request: HttpRequest, name: str, default: int) -> int:
    value = request.GET.get(name, "")
    return int(value) if value.isdigit() else default


def compiled_diff_view(model_admin: admin.ModelAdmin[Any], request: HttpRequest,
                       object_id: str) -> HttpResponse:
    entity = model_admin.get_object(request, object_id)
    if not model_admin.has_view_permission(request, entity):
        raise PermissionDenied
    if entity is None:
        raise Http404("No such entity.")
    latest = compiled_truth_history(entity_id=entity.pk, limit=1)
    newest = latest[0].version if latest else 0
    old = _version(request, "old", max(newest - 1, 1))
    new = _version(request, "new", newest)
    table: SafeString | None = None
    try:
        before, after = compiled_truth_pair(entity_id=entity.pk, old=old, new=new)
        table = diff_html(before.markdown, after.markdown,
                          old_label=f"version {old} ({before.as_of:%Y-%m-%d %H:%M})",
                          new_label=f"version {new} ({after.as_of:%Y-%m-%d %H:%M})")
    except DomainError as error:
        model_admin.message_user(request, error.describe(), messages.WARNING)
    context = {**model_admin.admin_site.each_context(request), "opts": model_admin.model._meta,
               "original": entity, "title": f"Compiled truth of {entity.key}: v{old} → v{new}",
               "table": table,
               "change_url": reverse("admin:memory_entity_change", args=[entity.pk])}
    return TemplateResponse(request, "admin/memory/entity/compiled_diff.html", context)
