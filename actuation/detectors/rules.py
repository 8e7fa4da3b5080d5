"""Only instructions become instructions: a text the operator said is proposed as a rule
only when Cortex's own rule reading (`insight.analyzers.instructions`, the same reading as
what Cortex holds) finds one in it, with its polarity, scope and alternative; the line then
states the rule, its words quoted (transcript text is never written unquoted)."""

from __future__ import annotations

from actuation.formats.quoting import quote
from insight.analyzers.instructions import claims_and_language, rule_of, rule_read
from insight.analyzers.rules import Rule

NEGATIVE = "negative"
INSTRUCTION = "instruction"


def rule_in(text: str, *, corrective: bool) -> Rule | None:
    """The first instruction `text` states (None: it states none). `corrective`: said to
    correct the agent (a refusal's reason, after an interrupt), where a bare "use X" is one
    (read as the instruction analyzer reads such a text)."""
    if not corrective:
        found = rule_read(text=text)
        return found if found is not None and found.kind == INSTRUCTION else None
    claims, language = claims_and_language(text, corrective=True)
    for claim in claims:
        if claim.kind == INSTRUCTION:
            return rule_of(claim, language=language, project="p")
    return None


def rule_line(rule: Rule) -> str:
    """`- Never: "use npm", instead "use pnpm".`, `- Always: "use pnpm", not "npm".`"""
    line = f"- {'Never' if rule.polarity == NEGATIVE else 'Always'}: {quote(rule.action)}"
    if rule.alternative:
        line += f", instead {quote(rule.alternative)}"
    if rule.replaces:
        line += f", not {quote(rule.replaces)}"
    if rule.qualifier:
        line += f" ({quote(rule.qualifier)})"
    return line + "."
