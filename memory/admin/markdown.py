"""A small, safe markdown-to-HTML for compiled truths: headings, lists, block quotes, fenced
code, paragraphs; inline code spans, bold, backslash escapes. The whole text is HTML-escaped
first, so the only tags in the output are the ones added here; the one attribute is the
`href` of a code span the caller links (a raw event id, an entity key), built by the caller
from the span's text and escaped here."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from django.utils.safestring import SafeString, mark_safe

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+(.*)$")
_QUOTE = re.compile(r"^&gt;\s?(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_BOLD = re.compile(r"(?<!\\)\*\*(?=\S)(.+?)(?<=\S)(?<!\\)\*\*")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _plain(text: str) -> str:
    return _ESCAPE.sub(r"\1", _BOLD.sub(r"<strong>\1</strong>", text))


# The URL a code span links to (given its unescaped text), or None: not a link.
CodeLink = Callable[[str], str | None]


def _no_link(code: str) -> str | None:
    return None


def _inline(text: str, link: CodeLink = _no_link) -> str:
    """Code spans first (their content is left as it is), then bold and escapes elsewhere."""
    out, at = [], 0
    for match in _CODE_SPAN.finditer(text):
        out.append(_plain(text[at:match.start()]))
        code = match.group(2)
        if len(code) > 1 and code.startswith(" ") and code.endswith(" "):
            code = code[1:-1]
        url = link(html.unescape(code))
        out.append(f'<a href="{html.escape(url, quote=True)}"><code>{code}</code></a>' if url
                   else f"<code>{code}</code>")
        at = match.end()
    out.append(_plain(text[at:]))
    return "".join(out)


def code_spans(text: str) -> set[str]:
    """The text of every inline code span of a document (to look up what they name)."""
    return {html.unescape(m.group(2).strip()) for m in _CODE_SPAN.finditer(html.escape(text))}


class _Blocks:
    def __init__(self, link: CodeLink = _no_link) -> None:
        self.link = link
        self.out: list[str] = []
        self.paragraph: list[str] = []
        self.list_tag: str | None = None
        self.quote: list[str] = []

    def flush(self) -> None:
        if self.paragraph:
            self.out.append(f"<p>{_inline(' '.join(self.paragraph), self.link)}</p>")
            self.paragraph = []
        if self.list_tag:
            self.out.append(f"</{self.list_tag}>")
            self.list_tag = None
        if self.quote:
            quote = _inline(" ".join(self.quote), self.link)
            self.out.append(f"<blockquote><p>{quote}</p></blockquote>")
            self.quote = []

    def item(self, tag: str, text: str) -> None:
        if self.list_tag != tag:
            self.flush()
            self.out.append(f"<{tag}>")
            self.list_tag = tag
        self.out.append(f"<li>{_inline(text, self.link)}</li>")

    def line(self, line: str) -> None:
        heading, bullet = _HEADING.match(line), _BULLET.match(line)
        numbered, quote = _NUMBERED.match(line), _QUOTE.match(line)
        if not line.strip():
            self.flush()
        elif heading:
            self.flush()
            level = len(heading.group(1))
            self.out.append(f"<h{level}>{_inline(heading.group(2), self.link)}</h{level}>")
        elif bullet:
            self.item("ul", bullet.group(1))
        elif numbered:
            self.item("ol", numbered.group(1))
        elif quote:
            if not self.quote:
                self.flush()
            self.quote.append(quote.group(1))
        elif self.quote:
            self.quote.append(line.strip())
        else:
            if self.list_tag:
                self.flush()
            self.paragraph.append(line.strip())


def markdown_html(text: str, *, link: CodeLink = _no_link) -> SafeString:
    """The document as HTML; each inline code span `link` gives a URL for is a link."""
    blocks = _Blocks(link)
    code: list[str] | None = None
    for line in html.escape(text, quote=True).splitlines():
        if _FENCE.match(line):
            if code is None:
                blocks.flush()
                code = []
            else:
                blocks.out.append(f"<pre><code>{chr(10).join(code)}</code></pre>")
                code = None
        elif code is not None:
            code.append(line)
        else:
            blocks.line(line)
    if code is not None:
        blocks.out.append(f"<pre><code>{chr(10).join(code)}</code></pre>")
    blocks.flush()
    return mark_safe("\n".join(blocks.out))  # noqa: S308 - every input character was escaped
