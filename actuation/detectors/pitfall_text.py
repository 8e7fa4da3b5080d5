"""Which tool errors can be an agent's pitfall, by their text alone, and what the pitfall's
line tells the next session to do. Pure: plain strings in and out.

A pitfall is the agent's mistake, not a state of the code: an error whose text names the
code being worked on (a compiler or linter message about one function, a source location,
a failing test's name) is a passing state of development, a dependency not installed a state
of the environment; an empty message or a command's progress output is no error at all."""

from __future__ import annotations

import re

# No error said in it: a command's output or progress, not a message about a mistake.
_ERROR_WORDS = re.compile(
    r"(?:error|exception)s?\b|\b(?:fail(?:s|ed|ure)?|fatal|cannot|can't|could not|couldn't|"
    r"not found|no such|not exist|does not|doesn't|denied|refused|invalid|missing|"
    r"unknown|unrecognized|unexpected|not allowed|not permitted|must|has not been|"
    r"modified since|timed? ?out|unable|required|erreur|échec|impossible|introuvable)\b",
    re.IGNORECASE)
_LETTERS = re.compile(r"[^\W\d_]{2,}")
# Text naming the code under edit: a source location, a call, a test, a compiler's or a
# linter's diagnostic.
_CODE = [
    ("a source location", re.compile(
        r"(?:<path>|\b[\w-]+\.[a-z]{1,5}):<n>|\bline <n>\b|:<n>:<n>\b", re.IGNORECASE)),
    ("a function or method", re.compile(r"\b[A-Za-z_][\w.]*\(\)")),
    ("a test's name", re.compile(
        r"\btest_\w+|--- fail|::test|\bfailed tests?\b|\bassert(?:ion)?\w*\b|"
        r"\btests? failed\b|\bexpected\b.*\b(?:got|but was)\b", re.IGNORECASE)),
    ("a compiler's or a type checker's diagnostic", re.compile(
        r"\bcannot use\b|\bundefined:|\bundeclared\b|\bnot used\b|\bdeclared and not used\b|"
        r"\berror\s*ts\d+\b|\berror\[e\d+\]|\bmismatched types\b|\bincompatible types?\b|"
        r"\bis not assignable\b|\bhas no attribute\b|\bis not defined\b|\bsyntaxerror\b|"
        r"\btypeerror\b|\bnameerror\b|\bindentationerror\b|\bunexpected token\b|"
        r"\bno (?:field|method|member) (?:or method )?named\b|"
        r"\bcompil(?:e|ation) (?:error|failed)\b",
        re.IGNORECASE)),
    ("a test run's or a check's result", re.compile(
        r"\bjob\b.*\bfailed\b|\bformat(?:ting)? check|\bwould reformat\b|\bcoverage\b",
        re.IGNORECASE)),
    ("a linter's finding", re.compile(r"\b[a-z]{1,3}\d{3,4}\b|\bfound <n> errors?\b|\blint",
                                      re.IGNORECASE)),
]
# A dependency not installed: a state of the environment the code runs in (`no module named
# 'torch'` then `pip install`), not a mistake of the agent's a line could prevent.
_MISSING_DEPENDENCY = re.compile(
    r"\bmodulenotfounderror\b|\bno module named\b|\bcannot find module\b|"
    r"\bcannot find package\b|\bimporterror\b|\bcould not resolve (?:import|dependency)\b",
    re.IGNORECASE)
_MALFORMED = re.compile(r"\binputvalidationerror\b|\binvalid tool parameters\b",
                        re.IGNORECASE)
_PROGRESS = re.compile(
    r"^\s*(?:compiling|building|downloading|fetching|resolving|installing|collecting|"
    r"running|checking|linking|bundling|transforming|updating|creating|writing|"
    r"\[[=#> -]*\]|<n>%|\[<n>/<n>\])", re.IGNORECASE)


def pitfall_text_refusal(message: str) -> str | None:
    """Why this normalized tool error cannot be a pitfall (None: it can)."""
    text = message.strip()
    if not text or text == "(no message)" or len(_LETTERS.findall(text)) < 2:
        return "an empty message"
    if _MALFORMED.search(text):
        return "the tool was called with malformed input: no step avoids it"
    if _MISSING_DEPENDENCY.search(text):
        return "a missing dependency: a state of the environment, not the agent's mistake"
    for what, pattern in _CODE:
        if pattern.search(text):
            return f"it names the code under edit ({what})"
    if not _ERROR_WORDS.search(text):
        return "progress or output, not an error" if _PROGRESS.search(text) \
            else "no error is said in it"
    return None


# What to do, for the errors of Claude Code's own tools whose cause is known.
_ADVICE = [
    (re.compile(r"has not been read yet", re.IGNORECASE),
     "Read a file before editing or writing it"),
    (re.compile(r"modified since (?:it was )?read", re.IGNORECASE),
     "Read a file again before editing it when it may have changed since it was read"),
    (re.compile(r"string to replace not found", re.IGNORECASE),
     "Read the file again and copy the exact text to replace before an Edit"),
    (re.compile(r"matches of the string to replace", re.IGNORECASE),
     "Give Edit a string that matches once (more context), or replace all on purpose"),
    (re.compile(r"file does not exist|no such file", re.IGNORECASE),
     "Check that a path exists before reading it"),
]


def _step(step: str) -> str:
    """`Read`, or the command of a Bash step (`uv run pytest`), in a code span."""
    shown = step.split(": ", 1)[1] if step.startswith("Bash: ") else step
    return f"`{shown}`"


def pitfall_advice(*, message: str, failing: str, recovery: str, kind: str) -> str:
    """What to do, as the line's first words: "Read a file before editing or writing it",
    else what the agent did to get past it ("Run `npm install` before `npm test`")."""
    for pattern, advice in _ADVICE:
        if pattern.search(message):
            return advice
    if kind == "before":
        return f"Run {_step(recovery)} before {_step(failing)}"
    return f"Use {_step(recovery)} instead of {_step(failing)}"
