"""Text that came from transcripts or tool output is untrusted: it enters a file only as a
short quotation, on one line, unable to open or close a section or a code span."""

from __future__ import annotations

import re
import unicodedata

_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")
_MARKERS = re.compile(r"<!--|-->|cortex:(?:begin|end)", re.IGNORECASE)
_SPACES = re.compile(r"\s+")


def quote(text: str, *, limit: int = 160) -> str:
    """`text` as a double-quoted, single-line excerpt of at most `limit` characters."""
    clean = unicodedata.normalize("NFC", text)
    clean = _CONTROL.sub(" ", clean)
    clean = _MARKERS.sub("", clean).replace("`", "'").replace('"', "'")
    clean = _SPACES.sub(" ", clean).strip()
    if len(clean) > limit:
        clean = clean[: limit - 1].rstrip() + "…"
    return f'"{clean}"'


def normalized(text: str) -> str:
    """For comparing lines: casefolded, spaces collapsed, quotes and list markers ignored."""
    text = text.strip().lstrip("-*+ ").casefold()
    return _SPACES.sub(" ", re.sub(r"[\"'`]", "", text)).strip()
