"""Permissions the operator granted again and again for the same tool and command pattern
-> one `allowlist` proposal per repository and detection: the rules added to
`.claude/settings.json` `permissions.allow`, each with its own evidence (distinct sessions,
last seen, how often granted) so that the operator can drop some before approving. A rule is
never broader than the rule the granted commands share, never one that runs whatever
follows it (formats.allowlist); a rule the operator also denied in the window, dropped or
rejected before, is not proposed."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from actuation.detectors.base import Detector, Draft, Item, Quote
from actuation.formats.allowlist import (
    SETTINGS_PATH,
    SettingsInvalid,
    allow_rule_refusal,
    allow_rules_add,
    settings_load,
)
from actuation.formats.items import items_title
from actuation.formats.quoting import quote
from actuation.models import TargetRepository
from actuation.selectors.graph import Graph, Occurrence, Pattern
from memory.config import DecayConfig

NAME = "permissions"
GRANTED = "granted"
DENIED = ("denied", "blocked")


def _rule(pattern: Pattern) -> str:
    rules = Counter(str(o.payload.get("pattern") or "") for o in pattern.occurrences)
    if len(rules) != 1:
        return ""  # one entity, several rules: nothing is sure enough to grant
    return next(iter(rules))


def _granted(graph: Graph, pattern: Pattern, denied: set[tuple[int, int]],
             config: DecayConfig) -> tuple[str, list[Occurrence]] | None:
    """(the rule, its grants in distinct sessions) when the pattern may become a rule."""
    granted = graph.distinct(pattern.repository, [
        o for o in pattern.occurrences if o.payload.get("decision") == GRANTED])
    sessions = {o.session for o in granted if o.session}
    if (len(sessions) < config.actuation.allowlist.min_sessions
            or (pattern.entity.id, pattern.repository.pk) in denied):
        return None
    rule = _rule(pattern)
    if not rule or allow_rule_refusal(rule) is not None:
        return None
    return rule, granted


def _item(rule: str, entity: str, granted: list[Occurrence]) -> Item:
    sessions = sorted({o.session for o in granted if o.session})
    return Item(key=rule, line=rule, evidence={
        "entity": entity, "sessions": len(sessions), "granted": len(granted),
        "last_seen": max(o.at for o in granted).isoformat(),
        "session_ids": sessions[-20:],
        "events": sorted({e for o in granted for e in o.events})[-20:]})


def _draft(graph: Graph, repository: TargetRepository,
           found: list[tuple[Pattern, str, list[Occurrence]]],
           config: DecayConfig) -> Draft | None:
    before = graph.file(repository, SETTINGS_PATH)
    try:
        allowed = settings_load(before).get("permissions", {}).get("allow", [])
    except SettingsInvalid:
        return None
    found = sorted((f for f in found if f[1] not in allowed),
                   key=lambda f: (-len({o.session for o in f[2]}), f[1]))
    after = allow_rules_add(before, rules=[rule for _, rule, _ in found])
    if after is None:
        return None
    items = [_item(rule, p.entity.key, granted) for p, rule, granted in found]
    occurrences = [o for _, _, granted in found for o in granted]
    min_sessions = config.actuation.allowlist.min_sessions
    listing = "; ".join(f"{quote(i.key, limit=120)} in {i.evidence['sessions']} sessions "
                        f"({i.evidence['granted']} grants, last {i.evidence['last_seen'][:10]})"
                        for i in items)
    rationale = (
        f"The operator let the agent run each of these in at least {min_sessions} sessions of "
        f"{repository.name} and never refused it in the last "
        f"{config.actuation.window_days:g} days: {listing}. Allowing them in {SETTINGS_PATH} "
        "spares the prompts. This is a capability grant: each rule covers exactly the command "
        "prefix its granted commands share, nothing broader. Drop any rule before approving "
        "and it is not proposed again."
    )
    noun = "rule" if len(items) == 1 else "rules"
    return Draft(
        detector=NAME, diff_type="allowlist", repository=repository,
        file_path=SETTINGS_PATH, pattern_key=f"allowlist:{repository.pk}",
        short_name=f"allow-{len(items)}-{noun}",
        title=items_title(diff_type="allowlist", keys=[i.key for i in items], lines=[]),
        rationale=rationale,
        before=before, after=after, grounding=[p.entity for p, _, _ in found],
        occurrences=occurrences, items=items,
        quotes=[Quote(text=quote(rule, limit=120), by="the permission rule the grants share",
                      event=granted[-1].events[0] if granted[-1].events else "")
                for _, rule, granted in found],
        recurrence={"category": "permission_request",
                    "entities": [p.entity.key for p, _, _ in found],
                    "payload": {"decision": "requested"}},
        admitted_by=(f"allowlist: {len(items)} {noun} each granted in >= {min_sessions} "
                     "distinct sessions (one imported twice counts once), never "
                     "denied, none broader than granted, none dropped or rejected before; "
                     "grouped into one proposal for the repository"),
    )


def detect(graph: Graph, now: datetime, config: DecayConfig) -> list[Draft]:
    patterns = graph.patterns(namespace="agent:*:skill", category="permission_request",
                              payload_in=("decision", (GRANTED, *DENIED)),
                              min_sessions=config.actuation.allowlist.min_sessions)
    denied = {(p.entity.id, p.repository.pk) for p in patterns
              if any(o.payload.get("decision") in DENIED for o in p.occurrences)}
    by_repository: dict[int, dict[str, tuple[Pattern, str, list[Occurrence]]]] = {}
    for pattern in patterns:
        if (found := _granted(graph, pattern, denied, config)) is None:
            continue
        rule, granted = found
        if rule in graph.settled(pattern.repository, NAME):
            continue
        rules = by_repository.setdefault(pattern.repository.pk, {})
        if rule in rules:  # two entities, one rule: one item
            granted = [*rules[rule][2], *granted]
        rules[rule] = (pattern, rule, granted)
    return [d for r in graph.repositories if (found_here := by_repository.get(r.pk))
            and (d := _draft(graph, r, list(found_here.values()), config)) is not None]


DETECTOR = Detector(name=NAME, diff_type="allowlist", detect=detect)
