"""The fixed English texts Claude Code writes into transcripts for interrupts, refusals
and permission checks (whatever language the operator speaks)."""

from __future__ import annotations

import re

INTERRUPT = re.compile(r"^\s*\[Request interrupted by user(?P<tool> for tool use)?")
REJECTED = re.compile(
    r"^\s*(?:Error: )?(?:The user doesn't want to (?:proceed with this tool use"
    r"|take this action right now)|User rejected tool use)"
)
REJECTION_REASON = re.compile(
    r"(?:The user provided the following reason for the rejection:"
    r"|To tell you how to proceed, the user said:|the user said:)\s*(?P<reason>.+)", re.S
)
NOT_GRANTED = re.compile(
    r"Claude requested permissions to (?:use (?P<tool>[\w.:-]+)"
    r"|(?P<action>write to|read from|edit|access) (?P<path>.+?)),? but you haven't granted it yet"
)


class _Guarded:
    """A pattern searched only in texts holding `literal`, which each of its matches holds:
    the same answers, without trying the pattern at every position of a long tool output
    that cannot match (an alternation without a common prefix is tried at each one)."""

    def __init__(self, literal: str, pattern: str, flags: int = 0) -> None:
        self.literal, self.pattern = literal, re.compile(pattern, flags)

    def search(self, text: str) -> re.Match[str] | None:
        return self.pattern.search(text) if self.literal in text else None


REQUIRES_APPROVAL = _Guarded(
    "requires approval",
    r"(?:requires approval: (?P<command>.+)|This (?:Bash )?command requires approval)", re.S
)
BLOCKED = re.compile(r"^(?:Error: )?(?P<what>.+?) was blocked\. For security")
EXIT_CODE = re.compile(r"^\s*(?:Error: )?Exit code (?P<code>-?\d+)")
TOOL_USE_ERROR_TAG = re.compile(r"</?tool_use_error>")


def is_permission_text(text: str) -> bool:
    """A refusal or a permission check, not a failure of the tool itself."""
    return bool(
        REJECTED.search(text) or NOT_GRANTED.search(text) or REQUIRES_APPROVAL.search(text)
        or BLOCKED.search(text) or INTERRUPT.search(text)
    )
