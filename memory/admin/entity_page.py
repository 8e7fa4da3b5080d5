"""The parts of the entity page beyond its fields: the current compiled truth rendered, its
versions (with a diff between two), its facts and memories linked to their raw events, its
neighbourhood. Each reads through a selector; nothing here reinforces."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from memory import clock
from memory.admin.markdown import CodeLink, code_spans, markdown_html
from memory.admin.neighbourhood import neighbourhood_svg
from memory.compiled.text import when
from memory.config import config_get
from memory.models import CompiledTruth, Entity
from memory.selectors.compiled_truth import compiled_truth_current
from memory.selectors.entities import STRENGTH_NOW
from memory.selectors.entity_page import (
    compiled_truth_history,
    entity_facts,
    entity_ids_by_key,
    entity_memories,
    entity_neighbourhood,
)

FACTS_SHOWN = 30
MEMORIES_SHOWN = 20
VERSIONS_SHOWN = 20
NEIGHBOURS_SHOWN = 16
EVENTS_PER_ROW = 5


# A raw event's id (a ULID): what a compiled truth cites in code spans.
_EVENT_ID = re.compile(r"[0-9A-HJKMNP-TV-Z]{26}")


def strength_text(value: float | None, *, pinned: bool) -> str:
    """A strength as the console writes it everywhere: three decimals, or pinned."""
    if pinned or value is None or math.isinf(value):
        return "pinned" if pinned else "-"
    return f"{value:.3f}"


def strength_now_text(entity: Entity) -> str:
    """The entity's strength now, and whether it is under the injection threshold."""
    value = getattr(entity, STRENGTH_NOW, None)
    text = strength_text(value, pinned=entity.pinned)
    threshold = config_get().thresholds.entity_strength
    if entity.pinned or value is None or math.isinf(value):
        return text
    if value < threshold:
        return f"{text} (faded: below the injection threshold {threshold:g})"
    return f"{text} (at or above the injection threshold {threshold:g})"


def _compiled_links(markdown: str) -> CodeLink:
    """Links for the code spans of a compiled truth: raw event ids to their event, entity keys
    to their entity (looked up in one query)."""
    ids = entity_ids_by_key(keys={code for code in code_spans(markdown) if ":" in code})

    def link(code: str) -> str | None:
        if _EVENT_ID.fullmatch(code):
            return reverse("admin:memory_memoryevent_change", args=[code])
        if code in ids:
            return reverse("admin:memory_entity_change", args=[ids[code]])
        return None

    return link


def _event_links(event_ids: Sequence[str]) -> SafeString:
    links = format_html_join(
        " ", '<a href="{}"><code>{}</code></a>',
        ((reverse("admin:memory_memoryevent_change", args=[eid]), eid)
         for eid in event_ids[:EVENTS_PER_ROW]))
    more = len(event_ids) - EVENTS_PER_ROW
    return format_html("{}{}", links, f" (+{more})" if more > 0 else "") if event_ids \
        else SafeString("—")


def compiled_truth_html(entity: Entity) -> SafeString:
    current = compiled_truth_current(entity_id=entity.pk)
    if current is None:
        return format_html("No compiled truth yet (<code>cortex rebuild compiled {}</code>).",
                           entity.key)
    return format_html(
        '<p class="help">Version {}, compiled on {}: a snapshot, each of its figures dated. '
        "Now: strength {}; the weights now are under Relations.</p>"
        '<div class="compiled-truth">{}</div>', current.version, when(current.as_of),
        strength_now_text(entity),
        markdown_html(current.markdown, link=_compiled_links(current.markdown)))


def _diff_url(entity: Entity) -> str:
    return reverse("admin:memory_entity_compiled_diff", args=[entity.pk])


def compiled_versions_html(entity: Entity) -> SafeString:
    versions = compiled_truth_history(entity_id=entity.pk, limit=VERSIONS_SHOWN)
    if not versions:
        return SafeString("none")
    url = _diff_url(entity)
    rows = format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                            "<td>{}</td></tr>", (
        (v.version, when(v.as_of), v.get_trigger_display(), ", ".join(v.reasons),
         strength_text(v.strength, pinned=v.pinned),
         format_html('<a href="{}?old={}&amp;new={}">diff with the previous</a>', url,
                     v.version - 1, v.version) if v.version > 1 else "—")
        for v in versions))
    newest, oldest = versions[0].version, versions[-1].version
    form = format_html(
        '<form method="get" action="{}">Diff version <select name="old">{}</select> with '
        '<select name="new">{}</select> <input type="submit" value="diff"></form>',
        url, _options(versions, max(oldest, newest - 1)), _options(versions, newest))
    return format_html("<table><tr><th>version</th><th>as of</th><th>trigger</th>"
                       "<th>reasons</th><th>strength then</th><th></th></tr>{}</table>{}",
                       rows, form)


def _options(versions: Sequence[CompiledTruth], chosen: int) -> SafeString:
    return format_html_join("", '<option value="{}"{}>{}</option>', (
        (v.version, " selected" if v.version == chosen else "", v.version) for v in versions))


def facts_html(entity: Entity) -> SafeString:
    facts = entity_facts(entity_id=entity.pk, limit=FACTS_SHOWN)
    rows = format_html_join("", '<tr><td><a href="{}">{}</a></td><td>{}</td><td>{}</td>'
                            "<td>{}</td><td>{}</td></tr>", (
        (reverse("admin:memory_fact_change", args=[f.pk]), str(f), f.get_status_display(),
         f.evidence_count, f.last_seen_at.date(), _event_links(f.event_ids))
        for f in facts))
    if not rows:
        return SafeString("none")
    return format_html("<table><tr><th>claim</th><th>status</th><th>seen</th><th>last</th>"
                       "<th>raw events</th></tr>{}</table>", rows)


def memories_html(entity: Entity) -> SafeString:
    memories = entity_memories(entity_id=entity.pk, limit=MEMORIES_SHOWN, now=clock.now())
    rows = format_html_join("", '<tr><td><a href="{}">{}</a></td><td>{}</td><td>{}</td>'
                            "<td>{}</td><td>{}</td></tr>", (
        (reverse("admin:memory_memory_change", args=[m.pk]), m.text[:200],
         strength_text(getattr(m, STRENGTH_NOW), pinned=m.pinned), m.occurred_at.date(),
         m.source, _event_links([m.event_id]))
        for m in memories))
    if not rows:
        return SafeString("none")
    return format_html("<table><tr><th>memory (newest first)</th><th>strength now</th>"
                       "<th>occurred</th><th>source</th><th>raw event</th></tr>{}</table>",
                       rows)


def neighbourhood_html(entity: Entity) -> SafeString:
    config = config_get()
    neighbours = entity_neighbourhood(entity=entity, limit=NEIGHBOURS_SHOWN, now=clock.now(),
                                      config=config)
    if not neighbours:
        return SafeString("no relation")
    return neighbourhood_svg(
        name=entity.display_name or entity.key, neighbours=neighbours,
        threshold=config.thresholds.relation_weight, entity_id=entity.pk,
        href=lambda pk: reverse("admin:memory_entity_change", args=[pk]))
