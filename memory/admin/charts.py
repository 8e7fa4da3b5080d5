"""A strength curve as inline SVG, drawn on the server (no JavaScript, no library)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from memory.decay.curve import Timeline

WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 16, 36
LINE = "#264b8c"
ALERT = "#b33"


@dataclass(frozen=True)
class _Frame:
    start: datetime
    seconds: float
    top: float

    @classmethod
    def of(cls, timeline: Timeline) -> _Frame:
        start, end = timeline.points[0][0], timeline.points[-1][0]
        top = max(max(v for _, v in timeline.points), timeline.threshold) * 1.1
        return cls(start=start, seconds=(end - start).total_seconds() or 1.0, top=top)

    def x(self, at: datetime) -> float:
        return LEFT + (at - self.start).total_seconds() / self.seconds * (WIDTH - LEFT - RIGHT)

    def y(self, value: float) -> float:
        return TOP + (1 - value / self.top) * (HEIGHT - TOP - BOTTOM)


def _n(value: float) -> str:
    return f"{value:.1f}"


def _polyline(points: list[tuple[float, float]], dashed: bool) -> SafeString:
    if len(points) < 2:
        return SafeString("")
    coords = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
    return format_html('<polyline fill="none" stroke="{}" stroke-width="2" '
                       'stroke-dasharray="{}" points="{}"/>', LINE, "6 4" if dashed else "none",
                       coords)


def strength_curve_svg(timeline: Timeline) -> SafeString:
    """Past (solid) and projected (dashed) strength, the threshold, now, the crossing."""
    frame = _Frame.of(timeline)
    past = [(frame.x(at), frame.y(v)) for at, v in timeline.points if at <= timeline.now]
    future = [(frame.x(at), frame.y(v)) for at, v in timeline.points if at >= timeline.now]
    ty, nx = frame.y(timeline.threshold), frame.x(timeline.now)
    parts = [
        format_html('<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" '
                    'stroke-dasharray="4 3"/><text x="{}" y="{}" font-size="11" '
                    'fill="{}">{}</text>', LEFT, _n(ty), WIDTH - RIGHT, _n(ty), ALERT,
                    LEFT + 4, _n(ty - 4), ALERT, f"threshold {timeline.threshold:g}"),
        format_html('<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#888"/>'
                    '<text x="{}" y="{}" font-size="11" fill="#555">now</text>',
                    _n(nx), TOP, _n(nx), HEIGHT - BOTTOM, _n(nx + 3), TOP + 10),
        _polyline(past, dashed=False),
        _polyline(future, dashed=True),
        _axis(timeline, frame),
    ]
    if timeline.crosses_at is not None:
        cx = frame.x(timeline.crosses_at)
        parts.append(format_html(
            '<circle cx="{}" cy="{}" r="4" fill="{}"/><text x="{}" y="{}" '
            'font-size="11" fill="{}">{}</text>', _n(cx), _n(ty), ALERT, _n(cx + 6),
            _n(ty + 14), ALERT, f"crosses {timeline.crosses_at:%Y-%m-%d}"))
    return format_html(
        '<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}" '
        'role="img" aria-label="strength curve" style="background:#fff;border:1px solid #ddd">'
        '{}</svg>', WIDTH, HEIGHT, WIDTH, HEIGHT, SafeString("".join(parts)))


def _axis(timeline: Timeline, frame: _Frame) -> SafeString:
    start, end = timeline.points[0][0], timeline.points[-1][0]
    ticks = [start + (end - start) * i / 4 for i in range(5)]
    base = HEIGHT - BOTTOM
    labels = format_html_join(
        "", '<text x="{}" y="{}" font-size="10" fill="#444" text-anchor="middle">{}</text>',
        ((_n(frame.x(t)), base + 14, f"{t:%Y-%m-%d}") for t in ticks),
    )
    peak = frame.top / 1.1
    y_labels = format_html_join(
        "", '<text x="{}" y="{}" font-size="10" fill="#444" text-anchor="end">{}</text>',
        ((LEFT - 4, _n(frame.y(v) + 3), f"{v:.2f}") for v in (0.0, peak / 2, peak)),
    )
    return format_html('<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#444"/>'
                       '<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#444"/>{}{}',
                       LEFT, base, WIDTH - RIGHT, base, LEFT, TOP, LEFT, base, labels, y_labels)
