"""A permission the operator granted again and again for the same tool and command pattern
-> an `allowlist` rule in `.claude/settings.json` `permissions.allow`, never broader than the
rule the granted commands share, never one that runs whatever follows it (formats.allowlist).
A rule the operator also denied in the window is not proposed."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from actuation.detectors.base import Detector, Draft, Quote
from actuation.formats.allowlist import (
    SETTINGS_PATH,
    SettingsInvalid,
    allow_rule_add,
    allow_rule_refusal,
)
from actuation.formats.quoting import quote
from actuation.selectors.graph import Graph, Pattern
from memory.config import DecayConfig

NAME = "permissions"
GRANTED = "granted"
DENIED = ("denied", "blocked")


def _rule(pattern: Pattern) -> str:
    rules = Counter(str(o.payload.get("pattern") or "") for o in pattern.occurrences)
    if len(rules) != 1:
        return ""  # one entity, several rules: nothing is sure enough to grant
    return next(iter(rules))


def _draft(graph: Graph, pattern: Pattern, denied: set[tuple[int, int]],
           config: DecayConfig) -> Draft | None:
    cfg = config.actuation.allowlist
    granted = [o for o in pattern.occurrences if o.payload.get("decision") == GRANTED]
    sessions = {o.session for o in granted if o.session}
    if len(sessions) < cfg.min_sessions or (pattern.entity.id, pattern.repository.pk) in denied:
        return None
    rule = _rule(pattern)
    if not rule or allow_rule_refusal(rule) is not None:
        return None
    before = graph.file(pattern.repository, SETTINGS_PATH)
    try:
        after = allow_rule_add(before, rule=rule)
    except SettingsInvalid:
        return None
    if after is None:
        return None
    rationale = (
        f"The operator let the agent run {quote(rule, limit=120)} in {len(sessions)} sessions "
        f"of {pattern.repository.name} and never refused it in the last "
        f"{config.actuation.window_days:g} days. Allowing it in {SETTINGS_PATH} spares the "
        "prompt. This is a capability grant: the rule covers exactly the command prefix the "
        "granted commands share, nothing broader."
    )
    return Draft(
        detector=NAME, diff_type="allowlist", repository=pattern.repository,
        file_path=SETTINGS_PATH, pattern_key=f"permission:{pattern.entity.id}",
        short_name=f"allow-{rule}", title=f"Allow {rule}", rationale=rationale,
        before=before, after=after, grounding=[pattern.entity], occurrences=granted,
        quotes=[Quote(text=quote(rule, limit=120), by="the permission rule the grants share",
                      event=granted[-1].events[0] if granted[-1].events else "")],
        recurrence={"category": "permission_request", "entity": pattern.entity.key,
                    "payload": {"decision": "requested"}},
    )


def detect(graph: Graph, now: datetime, config: DecayConfig) -> list[Draft]:
    patterns = graph.patterns(namespace="agent:*:skill", category="permission_request",
                              payload_in=("decision", (GRANTED, *DENIED)),
                              min_sessions=config.actuation.allowlist.min_sessions)
    denied = {(p.entity.id, p.repository.pk) for p in patterns
              if any(o.payload.get("decision") in DENIED for o in p.occurrences)}
    return [d for p in patterns if (d := _draft(graph, p, denied, config)) is not None]


DETECTOR = Detector(name=NAME, diff_type="allowlist", detect=detect)
