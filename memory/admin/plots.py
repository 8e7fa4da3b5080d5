"""The dashboard's plots as inline SVG drawn on the server (no JavaScript, no library): the
strength histogram and the threshold crossings per day."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from memory.selectors.dashboard import DayCrossings, Histogram

WIDTH, HEIGHT = 720, 220
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 16, 36
BAR = "#264b8c"
ROSE = "#2e7d32"
FELL = "#b33"


def _svg(label: str, body: SafeString) -> SafeString:
    return format_html(
        '<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}" '
        'role="img" aria-label="{}" style="background:#fff;border:1px solid #ddd">{}</svg>',
        WIDTH, HEIGHT, WIDTH, HEIGHT, label, body)


def _text(x: float, y: float, text: str, *, anchor: str = "middle",
          fill: str = "#444") -> SafeString:
    return format_html('<text x="{}" y="{}" font-size="10" fill="{}" text-anchor="{}">{}</text>',
                       f"{x:.1f}", f"{y:.1f}", fill, anchor, text)


def _bar(x: float, y: float, w: float, h: float, fill: str, title: str) -> SafeString:
    return format_html('<rect x="{}" y="{}" width="{}" height="{}" fill="{}">'
                       "<title>{}</title></rect>", f"{x:.1f}", f"{y:.1f}", f"{w:.1f}",
                       f"{h:.1f}", fill, title)


def strength_histogram_svg(histogram: Histogram, *, threshold: float) -> SafeString:
    """One bar per bin; the injection threshold as a dashed line."""
    n = len(histogram.counts)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    top = max(max(histogram.counts, default=0), 1)
    width, base = plot_w / n, HEIGHT - BOTTOM
    span = histogram.edges[-1] or 1.0
    parts = []
    for i, count in enumerate(histogram.counts):
        h = count / top * plot_h
        lo, hi = histogram.edges[i], histogram.edges[i + 1]
        above = "+" if i == n - 1 else ")"
        parts.append(_bar(LEFT + i * width + 1, base - h, width - 2, h, BAR,
                          f"[{lo:.2f}, {hi:.2f}{above}: {count}"))
    tx = LEFT + min(threshold / span, 1.0) * plot_w
    parts.append(format_html('<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" '
                             'stroke-dasharray="4 3"/>', f"{tx:.1f}", TOP, f"{tx:.1f}", base,
                             FELL))
    parts.append(_text(tx + 4, TOP + 10, f"threshold {threshold:g}", anchor="start", fill=FELL))
    parts += [_text(LEFT + plot_w * i / 4, base + 14, f"{span * i / 4:.2f}") for i in range(5)]
    parts += [_text(LEFT - 4, base - plot_h * f + 3, str(round(top * f)), anchor="end")
              for f in (0.0, 0.5, 1.0)]
    parts.append(_axes())
    return _svg("strength histogram", SafeString("".join(parts)))


def _axes() -> SafeString:
    base = HEIGHT - BOTTOM
    return format_html('<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#444"/>'
                       '<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#444"/>',
                       LEFT, base, WIDTH - RIGHT, base, LEFT, TOP, LEFT, base)


def crossings_svg(days: Sequence[DayCrossings], *, label: str) -> SafeString:
    """Per day, what rose above its threshold (up, green) and what fell below (down, red)."""
    plot_w, half = WIDTH - LEFT - RIGHT, (HEIGHT - TOP - BOTTOM) / 2
    middle = TOP + half
    top = max(max((max(d.rose, d.fell) for d in days), default=0), 1)
    width = plot_w / max(len(days), 1)
    parts = []
    for i, d in enumerate(days):
        x = LEFT + i * width + 1
        up, down = d.rose / top * half, d.fell / top * half
        if d.rose:
            parts.append(_bar(x, middle - up, width - 2, up, ROSE, f"{d.day}: {d.rose} rose"))
        if d.fell:
            parts.append(_bar(x, middle, width - 2, down, FELL, f"{d.day}: {d.fell} fell"))
    ticks = range(0, len(days), max(len(days) // 6, 1))
    parts += [_text(LEFT + (i + 0.5) * width, HEIGHT - BOTTOM + 14, f"{days[i].day:%m-%d}")
              for i in ticks]
    parts += [_text(LEFT - 4, middle - half + 8, f"+{top}", anchor="end", fill=ROSE),
              _text(LEFT - 4, middle + half, f"-{top}", anchor="end", fill=FELL),
              format_html('<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#444"/>', LEFT,
                          f"{middle:.1f}", WIDTH - RIGHT, f"{middle:.1f}")]
    return _svg(label, format_html_join("", "{}", ((p,) for p in parts)))
