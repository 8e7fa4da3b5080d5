"""Replays a session on a policy and measures it; aggregates sessions into a row.

Each turn: `step(turn)`, then the turn's recalls and registrations. A recall that
misses counts as a miss and registers the item again (the agent has to re-read it).
At the last turn, after its step, each foundational rule is tested: present or not.
The working set is measured at the end of every turn.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from memory.working_set.base import TurnMemory
from memory.working_set.sessions import RECALL, Session


@dataclass(frozen=True)
class Outcome:
    terminal_recall: float
    rule_hits: int
    rule_asks: int
    noise_hits: int
    noise_asks: int
    working_set_mean: float
    working_set_max: int


Observer = Callable[[int, TurnMemory], None]


def replay(memory: TurnMemory, session: Session, observe: Observer | None = None) -> Outcome:
    hits = {True: 0, False: 0}
    asks = {True: 0, False: 0}
    sizes: list[int] = []
    for turn in range(1, session.turns):
        memory.step(turn)
        for kind, mem_id, foundational in session.events[turn]:
            if kind == RECALL:
                asks[foundational] += 1
                if memory.recall(mem_id, turn):
                    hits[foundational] += 1
                    continue
            memory.register(mem_id, "", turn, foundational)
        sizes.append(memory.working_set_size())
        if observe is not None:
            observe(turn, memory)
    memory.step(session.turns)
    if observe is not None:
        observe(session.turns, memory)
    present = sum(memory.is_present(rule) for rule in session.rules)
    return Outcome(
        terminal_recall=present / len(session.rules),
        rule_hits=hits[True] + present, rule_asks=asks[True] + len(session.rules),
        noise_hits=hits[False], noise_asks=asks[False],
        working_set_mean=statistics.fmean(sizes) if sizes else 0.0,
        working_set_max=max(sizes, default=0),
    )


@dataclass(frozen=True)
class Summary:
    foundational_recall: float
    foundational_recall_stdev: float
    foundational_hit_rate: float
    noise_hit_rate: float | None
    hit_rate: float
    working_set_mean: float
    working_set_max: int


def summarize(outcomes: Iterable[Outcome]) -> Summary:
    runs = list(outcomes)
    recalls = [run.terminal_recall for run in runs]
    noise_asks = sum(run.noise_asks for run in runs)
    return Summary(
        foundational_recall=statistics.mean(recalls),
        foundational_recall_stdev=statistics.stdev(recalls) if len(recalls) > 1 else 0.0,
        foundational_hit_rate=sum(r.rule_hits for r in runs) / sum(r.rule_asks for r in runs),
        noise_hit_rate=sum(r.noise_hits for r in runs) / noise_asks if noise_asks else None,
        hit_rate=(sum(r.rule_hits + r.noise_hits for r in runs)
                  / sum(r.rule_asks + r.noise_asks for r in runs)),
        working_set_mean=statistics.mean(run.working_set_mean for run in runs),
        working_set_max=max(run.working_set_max for run in runs),
    )


def run_policy(make: Callable[[], TurnMemory], sessions: Iterable[Session]) -> Summary:
    return summarize(replay(make(), session) for session in sessions)
