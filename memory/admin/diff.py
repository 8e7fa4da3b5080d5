"""Two texts side by side, line by line (difflib), as an HTML table: every line escaped."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

_Row = tuple[str, str, str, str, str]


def _rows(old: list[str], new: list[str]) -> Iterator[_Row]:
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for k in range(max(i2 - i1, j2 - j1)):
            i, j = i1 + k, j1 + k
            yield (tag, str(i + 1) if i < i2 else "", old[i] if i < i2 else "",
                   str(j + 1) if j < j2 else "", new[j] if j < j2 else "")


def diff_html(old: str, new: str, *, old_label: str, new_label: str) -> SafeString:
    rows = format_html_join(
        "", '<tr class="diff-{}"><td>{}</td><td><code>{}</code></td><td>{}</td>'
        '<td><code>{}</code></td></tr>',
        _rows(old.splitlines(), new.splitlines()))
    return format_html(
        "<style>.compiled-diff td{{vertical-align:top;white-space:pre-wrap}}"
        ".diff-delete td,.diff-insert td,.diff-replace td{{font-weight:bold}}"
        ".diff-delete{{background:#fdd}}.diff-insert{{background:#dfd}}"
        ".diff-replace{{background:#ffc}}</style>"
        '<table class="compiled-diff"><tr><th></th><th>{}</th><th></th><th>{}</th></tr>{}'
        "</table>", old_label, new_label, rows)
