"""Only instructions become instructions: a text the operator said is proposed as a rule
only when Cortex's own rule reading (insight's instruction analyzer, the same reading as
what Cortex holds) finds one in it, with its polarity, scope and alternative; the line then
states the rule, its words quoted (transcript text is never written unquoted)."""

from __future__ import annotations

import dataclasses

from actuation.formats.quoting import quote
from insight.analyzers.instructions import claims_and_language

NEGATIVE = "negative"


@dataclasses.dataclass(frozen=True)
class SpokenRule:
    polarity: str  # positive | negative
    action: str  # "use npm", without its polarity
    alternative: str = ""  # what to do instead of a negative rule
    replaces: str = ""  # what a positive rule replaces
    qualifier: str = ""  # where the sentence narrows it to: "in the tests"

    @property
    def name(self) -> str:
        return f"never {self.action}" if self.polarity == NEGATIVE else self.action


def rule_in(text: str, *, corrective: bool) -> SpokenRule | None:
    """The first instruction `text` states (None: it states none). `corrective`: said to
    correct the agent (a refusal's reason, after an interrupt), where a bare "use X" is one."""
    claims, _ = claims_and_language(text, corrective=corrective)
    for claim in claims:
        if claim.kind == "instruction":
            return SpokenRule(
                polarity=claim.polarity, action=claim.text, qualifier=claim.scope,
                replaces=claim.alternative if claim.polarity != NEGATIVE else "")
    return None


def rule_line(rule: SpokenRule) -> str:
    """`- Never: "use npm", instead "use pnpm".`, `- Always: "use pnpm", not "npm".`"""
    line = f"- {'Never' if rule.polarity == NEGATIVE else 'Always'}: {quote(rule.action)}"
    if rule.alternative:
        line += f", instead {quote(rule.alternative)}"
    if rule.replaces:
        line += f", not {quote(rule.replaces)}"
    if rule.qualifier:
        line += f" ({quote(rule.qualifier)})"
    return line + "."
