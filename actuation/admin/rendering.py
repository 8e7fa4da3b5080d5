"""How a proposal is shown: its diff in colour, its evidence linked to the raw events,
observations and entities. Every piece of text is escaped (it may come from transcripts)."""

from __future__ import annotations

from typing import Any

from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

_COLOURS = (("+++", "#555"), ("---", "#555"), ("@@", "#0550ae"), ("+", "#116329"),
            ("-", "#cf222e"))
_BACKGROUNDS = {"#116329": "#dafbe1", "#cf222e": "#ffebe9"}


def _colour(line: str) -> str:
    for prefix, colour in _COLOURS:
        if line.startswith(prefix):
            return colour
    return "inherit"


def diff_html(diff: str) -> SafeString:
    rows = []
    for line in diff.splitlines():
        colour = _colour(line)
        rows.append((colour, _BACKGROUNDS.get(colour, "transparent"), line or " "))
    body = format_html_join("", '<span class="diff-line" style="color:{};background:{};'
                            'display:block">{}</span>', rows)
    return format_html('<pre class="cortex-diff" style="font-size:12px;line-height:1.4;'
                       'padding:8px;border:1px solid #ddd;overflow:auto">{}</pre>', body)


def _link(viewname: str, pk: Any, label: str) -> SafeString:
    try:
        url = reverse(viewname, args=[pk])
    except NoReverseMatch:
        return format_html("{}", label)
    return format_html('<a href="{}">{}</a>', url, label)


def evidence_html(evidence: dict[str, Any], *, limit: int = 50) -> SafeString:
    entities = format_html_join(
        ", ", "{} ({})", ((_link("admin:memory_entity_change", e.get("id"), e.get("key", "")),
                           f"{float(e.get('strength', 0)):.2f}")
                          for e in evidence.get("entities", [])))
    events = format_html_join(", ", "{}", ((_link("admin:memory_memoryevent_change", e, e),)
                                           for e in evidence.get("events", [])[:limit]))
    observations = format_html_join(
        ", ", "{}", ((_link("admin:memory_observation_change", o, o),)
                     for o in evidence.get("observations", [])[:limit]))
    quotes = format_html_join("", "<blockquote>{} <small>({}, event {})</small></blockquote>",
                              ((q.get("text", ""), q.get("by", ""), q.get("event", ""))
                               for q in evidence.get("quotes", [])))
    return format_html(
        "<p><b>Entities:</b> {}</p><p><b>Sessions:</b> {}</p>"
        "<p><b>Raw events</b> ({}): {}</p><p><b>Observations</b> ({}): {}</p>"
        "<p><b>Quoted from the transcripts</b> (untrusted text, shown as evidence only):</p>{}",
        entities, len(evidence.get("sessions", [])), len(evidence.get("events", [])), events,
        len(evidence.get("observations", [])), observations, quotes)


def _seen(evidence: dict[str, Any]) -> str:
    parts = [f"{evidence['sessions']} sessions" if "sessions" in evidence else "",
             f"{evidence['days']} days" if "days" in evidence else "",
             f"granted {evidence['granted']} times" if "granted" in evidence else "",
             f"recovered {evidence['recovered']}" if "recovered" in evidence else "",
             f"last seen {str(evidence['last_seen'])[:10]}" if evidence.get("last_seen") else ""]
    return ", ".join(p for p in parts if p)


def items_html(proposal: Any, items: list[Any], *, approve: str, drop: str) -> SafeString:
    """A grouped proposal's items, each with its evidence; while it is in the queue, a box
    each to drop it, and the buttons that drop the checked ones (then approve). The inputs
    belong to the page's form (its CSRF token), the buttons post it to their own URL."""
    if len(items) < 2:
        return format_html("{}", "one change, approved or rejected whole")
    deciding = proposal.state == "proposed"
    rows = format_html_join("", "<li>{} <code>{}</code> <small>({})</small>{}</li>", (
        (format_html('<input type="checkbox" name="drop" value="{}" class="cortex-drop"> ',
                     item.key) if deciding and not item.dropped else "",
         item.key, _seen(item.evidence or {}),
         format_html(" <strong>{}</strong>", "dropped: never proposed again")
         if item.dropped else "") for item in items))
    buttons = format_html(
        '<p><button type="submit" formaction="{}" id="cortex-approve-kept">Approve without the '
        'checked items</button> <button type="submit" formaction="{}" id="cortex-drop">Drop '
        "the checked items</button> <small>A dropped item is never proposed again.</small>"
        "</p>", approve, drop) if deciding else ""
    return format_html('<ul class="cortex-items">{}</ul>{}', rows, buttons)
