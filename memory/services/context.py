"""Context assembly (docs/context.md): for an agent, a project and a query, the pinned
entities first, then the project's standing instructions and known pitfalls, then the most
relevant ones (what the query recalls within the project first; never another project's
rules, files or pitfalls; nothing for a project never seen), all at or above the injection
threshold, packed into a token budget, fenced as reference data; a session is not given the
same unchanged entity twice; every injected entity the query found (or pinned) is reinforced
once."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import close_old_connections, connection, transaction

from memory import clock
from memory.config import ContextSection, DecayConfig, config_get
from memory.context.render import (
    EntityBlockData,
    block_bare,
    block_digest,
    block_render,
    context_render,
    frame_render,
    line_render,
)
from memory.context.tokens import tokens_estimate
from memory.errors import Invalid
from memory.models import ContextInjection
from memory.selectors.context import (
    EntityNow,
    context_blocks_data,
    context_foreign_ids,
    context_ledger,
    context_pinned_ids,
    context_pitfall_ids,
    context_project_known,
    context_standing_ids,
)
from memory.selectors.recall import RecallFilters
from memory.services.entities import entity_reinforce
from memory.services.recall import Hit, RecallResult, recall_prepare, recall_run
from memory.services.sql import commit_unwaited

# The sections, in order: what the operator pinned; with a project, the operator's standing
# instructions for it and its known pitfalls (a line each: a root cause's name is the error);
# the relevant entities that hold claims or memories, whole; then those that hold nothing
# more than their name, a line each.
PINNED, STANDING, PITFALLS = "Pinned", "Standing instructions", "Known pitfalls"
RELEVANT, ALSO_RELEVANT = "Relevant", "Also relevant"
SECTIONS = (PINNED, STANDING, PITFALLS, RELEVANT, ALSO_RELEVANT)
LINES = (PITFALLS, ALSO_RELEVANT)
FOR_THE_PROJECT = (STANDING, PITFALLS)  # within `standing_share` of the budget
# What the blank line between two parts of the document costs (two newlines).
BLANK_LINE = 2


@dataclass
class Injected:
    key: str
    strength: float | None
    pinned: bool
    tokens: int
    section: str
    short: bool = False

    def as_dict(self) -> dict[str, Any]:
        strength = None if self.pinned or self.strength is None or math.isinf(self.strength) \
            else round(self.strength, 6)
        return {"key": self.key, "strength": strength, "pinned": self.pinned,
                "tokens": self.tokens, "section": self.section, "short": self.short}


@dataclass
class ContextResult:
    context: str
    entities: list[Injected] = field(default_factory=list)
    tokens_used: int = 0
    budget_tokens: int = 0
    dropped: list[dict[str, Any]] = field(default_factory=list)
    already_given: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"context": self.context, "entities": [e.as_dict() for e in self.entities],
                "tokens_used": self.tokens_used, "budget_tokens": self.budget_tokens,
                "dropped": self.dropped, "already_given": self.already_given}


def _section(config: DecayConfig) -> ContextSection:
    if config.context is None:
        raise Invalid("The configuration has no context section.", code="config",
                      fields={"context": "missing from config/decay.yaml"})
    return config.context


# With a project, the recall beyond it runs in this thread while the caller's recalls within
# it: each on its own database connection, so only outside a transaction (whose rows another
# connection cannot see). One thread: a second assembly meanwhile waits for it.
_BEYOND = ThreadPoolExecutor(max_workers=1, thread_name_prefix="context-beyond")


def _recalled_beyond(recall: Callable[..., RecallResult]) -> RecallResult:
    close_old_connections()  # as a request does first: a connection gone stale is replaced
    return recall(filters=RecallFilters())


def _candidates(*, query: str, project: str, section: ContextSection, now: datetime,
                config: DecayConfig
                ) -> tuple[list[int], dict[int, EntityNow], dict[int, list[int]]]:
    """Relevant entities, best first: the query's recall, and with a project the recall
    restricted to it first (its own things before the rest); each as the recall read it
    (at `now`, as the blocks want it); and the memories that matched it. A project Cortex
    has never seen has nothing relevant of its own, and every other project's is not its."""
    if not query.strip() or (project and not context_project_known(project=project)):
        return [], {}, {}
    ranked: list[int] = []
    known: dict[int, EntityNow] = {}
    matched: dict[int, list[int]] = {}
    recall = functools.partial(recall_run, query=query, limit=section.candidates,
                               reinforce=False, now=now, config=config)
    together = bool(project) and not connection.in_atomic_block
    if together:
        recall_prepare(query=query, config=config)
    beyond = _BEYOND.submit(_recalled_beyond, recall) if together else None
    results = [recall(filters=RecallFilters(project=project))] if project else []
    results.append(beyond.result() if beyond is not None else recall(filters=RecallFilters()))
    for result in results:
        for entity_id, hit in _relevant(result.hits, share=section.relevance_share):
            ranked.append(entity_id)
            known[entity_id] = EntityNow(key=hit.ref, name=hit.name, strength=hit.strength,
                                         pinned=hit.pinned)
            matched.setdefault(entity_id, []).extend(hit.memories)
    return list(dict.fromkeys(ranked)), known, matched


def _relevant(hits: list[Hit], *, share: float) -> list[tuple[int, Hit]]:
    """The entity hits scoring at least `share` of the best one's, with their ids."""
    found = [(hit.entity_id, hit) for hit in hits
             if hit.entity_id is not None and hit.kind == "entity"]
    floor = share * max((hit.score for _, hit in found), default=0.0)
    return [(entity_id, hit) for entity_id, hit in found if hit.score >= floor]


def _injectable(data: EntityBlockData, threshold: float) -> bool:
    return data.pinned or (data.strength is not None and data.strength >= threshold)


def _new(ids: list[int], taken: list[int]) -> list[int]:
    return [i for i in ids if i not in taken]


def _kept(ids: list[int], data: dict[int, EntityBlockData], threshold: float) -> list[int]:
    """Those of `ids` whose block was read and that may be injected."""
    return [i for i in ids if i in data and _injectable(data[i], threshold)]


def context_assemble(
    *, query: str, agent: str, budget_tokens: int, session: str = "", project: str = "",
    now: datetime | None = None, config: DecayConfig | None = None,
) -> ContextResult:
    config = config or config_get()
    section = _section(config)
    now = now or clock.now()
    if not 1 <= budget_tokens <= section.max_budget_tokens:
        raise Invalid(f"budget_tokens must be within 1..{section.max_budget_tokens}.",
                      fields={"budget_tokens": "out of range"})
    threshold = config.thresholds.entity_strength
    pinned = context_pinned_ids(limit=section.max_pinned)
    standing = _new(context_standing_ids(
        project=project, at=now, threshold=threshold, limit=section.standing_instructions,
        config=config), pinned)
    pitfalls = _new(context_pitfall_ids(
        project=project, at=now, namespace=section.pitfall_namespace,
        min_sessions=section.pitfall_min_sessions, limit=section.pitfalls), pinned + standing)
    found, known, matched = _candidates(query=query, project=project, section=section,
                                        now=now, config=config)
    relevant = _new(found, pinned + standing + pitfalls)
    if project:  # another project's rules, files and pitfalls are not this one's
        foreign = context_foreign_ids(project=project, entity_ids=relevant)
        relevant = [i for i in relevant if i not in foreign]
    data = context_blocks_data(entity_ids=[*pinned, *standing, *pitfalls, *relevant], now=now,
                               config=config, facts_per_entity=section.facts_per_entity,
                               memories_per_entity=section.memories_per_entity, known=known,
                               matched_memories=matched, project=project)
    for i in standing:  # its ties (the agent it governs, the operator who said it) add nothing
        if i in data:
            data[i] = dataclasses.replace(data[i], summary="")
    order = [(i, PINNED) for i in pinned if i in data] + [
        (i, STANDING) for i in _kept(standing, data, threshold)] + [
        (i, PITFALLS) for i in _kept(pitfalls, data, threshold)] + [
        (i, ALSO_RELEVANT if block_bare(data[i]) else RELEVANT)
        for i in _kept(relevant, data, threshold)]
    ledger = context_ledger(agent=agent, session=session, entity_ids=[i for i, _ in order])
    result, digests = _packed(order, data=data, ledger=ledger, budget_tokens=budget_tokens,
                              section=section)
    # A standing instruction or a pitfall is given for the project, not found by the query: it
    # is a recall (reinforced) only when the query found it too. Given by rote at every
    # session start it would never fade (the operator pins the permanent ones).
    recalled = {*pinned, *found}
    _record(agent=agent, session=session, digests=digests, now=now, config=config,
            reinforced=[i for i in digests if i in recalled])
    return result


def _packed(order: list[tuple[int, str]], *, data: dict[int, EntityBlockData],
            ledger: dict[int, str], budget_tokens: int, section: ContextSection
            ) -> tuple[ContextResult, dict[int, str]]:
    """The blocks packed in order into the budget (the standing instructions and pitfalls
    into `standing_share` of it at most), and the digest of each one given."""
    result = ContextResult(context="", budget_tokens=budget_tokens)
    used = tokens_estimate(frame_render())
    standing_room = int(budget_tokens * section.standing_share)
    chosen: list[tuple[str, str]] = []
    opened: set[str] = set()  # the sections whose heading is paid for
    digests: dict[int, str] = {}
    for entity_id, heading in order:
        block = data[entity_id]
        digest = block_digest(block)
        if ledger.get(entity_id) == digest:
            result.already_given.append(block.key)
            continue
        # a section's heading is paid for once, by its first block
        opening = 0 if heading in opened else tokens_estimate(f"## {heading}") + BLANK_LINE
        room = budget_tokens - used
        if heading in FOR_THE_PROJECT:
            room = min(room, standing_room)
        text, cost, short = _fitted(block, heading, room=room - opening,
                                    quote_chars=section.quote_chars)
        cost += opening
        if not text:
            result.dropped.append({"key": block.key, "tokens": cost, "reason": "budget"})
            continue
        used += cost
        if heading in FOR_THE_PROJECT:
            standing_room -= cost
        chosen.append((heading, text))
        opened.add(heading)
        digests[entity_id] = digest
        result.entities.append(Injected(key=block.key, strength=block.strength,
                                        pinned=block.pinned, tokens=cost, section=heading,
                                        short=short))
    # Who gets in is decided in order; a bare entity's line is shown after the blocks, where
    # it cannot be read as one more line of the block above it.
    chosen.sort(key=lambda pair: SECTIONS.index(pair[0]))
    result.context = context_render(chosen) if chosen else ""
    result.tokens_used = tokens_estimate(result.context) if chosen else 0
    return result, digests


def _fitted(block: EntityBlockData, heading: str, *, room: int, quote_chars: int
            ) -> tuple[str, int, bool]:
    """(text, tokens, short) of the block as it fits in `room` tokens (with the blank line
    before it): whole, else short; a bare entity as its one line. ("", the least it would
    cost, False) when nothing fits."""
    if heading in LINES:
        line = line_render(block)
        cost = tokens_estimate(line) + BLANK_LINE
        return (line, cost, False) if cost <= room else ("", cost, False)
    # The short form's lines are some of the whole block's, so it never costs more: when even
    # it does not fit, the block is dropped without rendering the whole of it.
    brief = block_render(block, quote_chars=quote_chars, short=True)
    brief_cost = tokens_estimate(brief) + BLANK_LINE
    if brief_cost > room:
        return "", brief_cost, False
    text = block_render(block, quote_chars=quote_chars)
    cost = tokens_estimate(text) + BLANK_LINE
    return (text, cost, False) if cost <= room else (brief, brief_cost, True)


def _record(*, agent: str, session: str, digests: dict[int, str], now: datetime,
            config: DecayConfig, reinforced: list[int]) -> None:
    """Reinforce each of `reinforced` once and note every injected entity in the session's
    ledger."""
    if not digests:
        return
    with transaction.atomic():
        commit_unwaited()
        if reinforced:
            entity_reinforce(entity_ids=reinforced, now=now, config=config, bound=True)
        if not session:
            return
        _ledger_note(agent=agent, session=session, digests=digests, now=now)


# One statement for the whole injection: new entities are noted, known ones take the new
# digest and count once more.
_LEDGER_UPSERT = f"""
INSERT INTO {ContextInjection._meta.db_table}
    (agent, session, entity_id, digest, count, first_at, last_at)
SELECT %s, %s, u.entity_id, u.digest, 1, %s, %s
FROM unnest(%s::bigint[], %s::text[]) AS u(entity_id, digest)
ON CONFLICT (agent, session, entity_id) DO UPDATE SET
    digest = EXCLUDED.digest, count = {ContextInjection._meta.db_table}.count + 1,
    last_at = EXCLUDED.last_at
"""


def _ledger_note(*, agent: str, session: str, digests: dict[int, str], now: datetime) -> None:
    ids = sorted(digests)
    with connection.cursor() as cursor:
        cursor.execute(_LEDGER_UPSERT, [agent, session, now, now, ids,
                                        [digests[i] for i in ids]])
