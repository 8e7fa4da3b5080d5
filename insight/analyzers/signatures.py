"""Normalized error signatures: the same failure in two sessions gets one signature.

What varies between two occurrences of one failure (paths, numbers, hashes, uuids,
timestamps, urls, ANSI colours) is replaced by placeholders; the salient lines (the
final exception of a traceback, else the lines that say error, else the first line)
are kept, lowercased, and hashed.
"""

from __future__ import annotations

import hashlib
import re

from insight.analyzers.claude_messages import EXIT_CODE, TOOL_USE_ERROR_TAG

MAX_LINES = 2
MAX_NORMALIZED = 300
MIN_WORDS_WITHOUT_TOOL = 3

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_ISO_TIME = r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
_UUID = r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
_SUBSTITUTIONS = [
    (re.compile(_ISO_TIME), "<ts>"),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"), "<ts>"),
    (re.compile(_UUID, re.I), "<uuid>"),
    (re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.I), "<url>"),
    (re.compile(r"(?:[A-Za-z]:\\|~[/\\]|\.{1,2}[/\\]|(?<![\w@])/)[^\s'\"`:,;()<>\[\]]+"), "<path>"),
    (re.compile(r"\b[\w.-]+(?:/[\w.@-]+)+\.[A-Za-z]{1,5}\b"), "<path>"),
    (re.compile(r"\b0x[0-9a-f]+\b", re.I), "<hex>"),
    (re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6,}\b", re.I), "<hex>"),
    (re.compile(r"(?<![A-Za-z0-9_])\d+(?:\.\d+)*"), "<n>"),
]
_WORDS = re.compile(r"[a-z]{2,}")
_SPACES = re.compile(r"\s+")
_FINAL_EXCEPTION = re.compile(r"^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt)\b:?")
_ERROR_LINE = re.compile(
    r"\b(?:error|errors|exception|traceback|failed|failure|fatal|cannot|can't|could not|"
    r"couldn't|not found|no such|denied|refused|invalid|missing|undefined|unexpected|"
    r"timed? ?out|panic|abort(?:ed)?|erreur|échec|impossible|introuvable|refusé)\b",
    re.I,
)
_NOISE_LINE = re.compile(r"^\s*(?:npm warn|warn(?:ing)?\b|\[?warn\]?|deprecat)", re.I)


def normalize_line(line: str) -> str:
    for pattern, placeholder in _SUBSTITUTIONS:
        line = pattern.sub(placeholder, line)
    return _SPACES.sub(" ", line).strip().casefold()


def _salient(lines: list[str]) -> list[str]:
    finals = [line for line in lines if _FINAL_EXCEPTION.match(line)]
    if finals:
        return finals[-1:]
    errors = [line for line in lines if _ERROR_LINE.search(line) and not _NOISE_LINE.match(line)]
    return errors or [line for line in lines if not _NOISE_LINE.match(line)] or lines


def exit_code_of(text: str) -> int | None:
    match = EXIT_CODE.match(text)
    return int(match.group("code")) if match else None


def normalized_error(text: str) -> str:
    text = TOOL_USE_ERROR_TAG.sub("", _ANSI.sub("", text[:20000]))
    text = EXIT_CODE.sub("", text, count=1)
    text = re.sub(r"^\s*Error:\s*", "", text)
    lines = [line for line in text.splitlines() if line.strip()]
    picked: list[str] = []
    for line in _salient(lines):
        normalized = normalize_line(line)
        if normalized and normalized not in picked:
            picked.append(normalized)
        if len(picked) == MAX_LINES:
            break
    return " | ".join(picked)[:MAX_NORMALIZED] or "(no message)"


def error_signature(*, tool: str, text: str) -> tuple[str, str]:
    """(signature, normalized message). The tool joins the hash only for terse messages,
    so that one root cause reached through two tools (Edit, Write) stays one signature."""
    normalized = normalized_error(text)
    basis = normalized
    if len(_WORDS.findall(normalized)) < MIN_WORDS_WITHOUT_TOOL:
        basis = f"{tool.casefold()}\n{normalized}"
    return hashlib.sha256(basis.encode()).hexdigest()[:16], normalized
