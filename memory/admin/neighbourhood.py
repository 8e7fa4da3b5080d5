"""An entity's neighbourhood as inline SVG: the entity in the middle, its neighbours on a
circle around it; a visible relation solid, a faded one (weight now under the threshold)
dashed and grey. Every label is escaped (format_html)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from memory.selectors.entity_page import Neighbour

SIZE = 520
RADIUS = 190
LABEL_CHARS = 28
VISIBLE = "#264b8c"
FADED = "#aaa"
SPREAD = 40.0


def _short(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def _edge(x: float, y: float, n: Neighbour, bend: float) -> SafeString:
    c = SIZE / 2
    dx, dy = x - c, y - c
    length = math.hypot(dx, dy) or 1.0
    qx, qy = (c + x) / 2 - dy / length * bend, (c + y) / 2 + dx / length * bend
    lx, ly = (c + 2 * qx + x) / 4, (c + 2 * qy + y) / 4  # the curve's midpoint
    arrow = "→" if n.outgoing else "←"
    return format_html(
        '<path class="{}" d="M {} {} Q {} {} {} {}" fill="none" stroke="{}" stroke-width="{}" '
        'stroke-dasharray="{}"><title>{} {} {} (weight {})</title></path>'
        '<text x="{}" y="{}" font-size="10" fill="{}" text-anchor="middle">{}</text>',
        "edge visible" if n.visible else "edge faded", f"{c:.1f}", f"{c:.1f}", f"{qx:.1f}",
        f"{qy:.1f}", f"{x:.1f}", f"{y:.1f}", VISIBLE if n.visible else FADED,
        f"{1 + 3 * min(n.weight, 1.0):.1f}", "none" if n.visible else "5 4", arrow,
        n.relation_type, n.other_key, f"{n.weight:.3f}", f"{lx:.1f}", f"{ly - 3:.1f}",
        VISIBLE if n.visible else FADED,
        _short(n.relation_type))


def _node(x: float, y: float, label: str, href: str, *, centre: bool = False) -> SafeString:
    return format_html(
        '<a href="{}"><circle cx="{}" cy="{}" r="{}" fill="{}" stroke="#264b8c"/>'
        '<text x="{}" y="{}" font-size="11" text-anchor="middle" fill="#222">{}</text></a>',
        href, f"{x:.1f}", f"{y:.1f}", 9 if centre else 6, "#264b8c" if centre else "#fff",
        f"{x:.1f}", f"{y + (22 if centre else 18):.1f}", _short(label))


def neighbourhood_svg(*, name: str, neighbours: Sequence[Neighbour], threshold: float,
                      href: Callable[[int], str], entity_id: int) -> SafeString:
    """`href(entity_id)` links each node to its entity page."""
    by_other: dict[int, list[Neighbour]] = defaultdict(list)
    for n in neighbours:
        by_other[n.other_id].append(n)
    c = SIZE / 2
    edges, nodes = [], []
    for i, (other_id, rels) in enumerate(by_other.items()):
        angle = 2 * math.pi * i / len(by_other) - math.pi / 2
        x, y = c + RADIUS * math.cos(angle), c + RADIUS * math.sin(angle)
        for k, rel in enumerate(rels):
            edges.append(_edge(x, y, rel, (k - (len(rels) - 1) / 2) * SPREAD))
        nodes.append(_node(x, y, rels[0].other_name or rels[0].other_key, href(other_id)))
    nodes.append(_node(c, c, name, href(entity_id), centre=True))
    legend = format_html(
        '<text x="8" y="14" font-size="10" fill="{}">solid: visible</text>'
        '<text x="8" y="28" font-size="10" fill="{}">dashed grey: faded (weight now &lt; {})'
        "</text>", VISIBLE, FADED, f"{threshold:g}")
    body = format_html_join("", "{}", ((part,) for part in [*edges, *nodes, legend]))
    return format_html(
        '<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}" '
        'role="img" aria-label="neighbourhood" style="background:#fff;border:1px solid #ddd">'
        "{}</svg>", SIZE, SIZE, SIZE, SIZE, body)
