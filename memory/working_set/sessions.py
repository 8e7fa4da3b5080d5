"""Seeded synthetic agent sessions: who is registered and who is asked for, turn by turn.

A session is policy-independent: every policy replays the same events, so settings
are compared on identical sessions (paired). All randomness comes from the
`random.Random` handed in; nothing reads the clock or the hash seed.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

REGISTER, RECALL = 0, 1
RULES_PER_SESSION = 3
# The document's spaced schedule (turns of the recalls), each jittered +-30% per seed.
SCHEDULE = (3, 11, 31, 76)
JITTER = 0.30

Event = tuple[int, str, bool]  # (REGISTER | RECALL, mem_id, is_foundational)


@dataclass(frozen=True)
class Session:
    turns: int
    rules: tuple[str, ...]
    events: tuple[tuple[Event, ...], ...]  # events[t] for t in 0..turns-1 (0 unused)


def _rule_ids() -> tuple[str, ...]:
    return tuple(f"rule-{index}" for index in range(RULES_PER_SESSION))


def _noise(turn: int, index: int) -> str:
    return f"noise-{turn}-{index}"


def _assemble(turns: int, recalls: list[list[Event]], noise: int) -> Session:
    rules = _rule_ids()
    events: list[tuple[Event, ...]] = [()]
    for turn in range(1, turns):
        batch = list(recalls[turn])
        if turn == 1:
            batch += [(REGISTER, rule, True) for rule in rules]
        batch += [(REGISTER, _noise(turn, index), False) for index in range(noise)]
        events.append(tuple(batch))
    return Session(turns=turns, rules=rules, events=tuple(events))


def spaced_turns(rng: random.Random, turns: int) -> list[int]:
    """The document's schedule, jittered, strictly increasing, before the final test."""
    chosen: list[int] = []
    for base in SCHEDULE:
        turn = max(round(base * rng.uniform(1 - JITTER, 1 + JITTER)), (chosen or [1])[-1] + 1)
        if turn >= turns:
            break
        chosen.append(turn)
    return chosen


def document_session(rng: random.Random, *, turns: int, noise: int,
                     recalled: bool = True) -> Session:
    """Rules registered at turn 1, recalled on the spaced schedule (or never), tested
    at the last turn; `noise` never-recalled items registered every turn."""
    recalls: list[list[Event]] = [[] for _ in range(turns)]
    for rule in _rule_ids():
        schedule = spaced_turns(rng, turns)
        for turn in schedule if recalled else ():
            recalls[turn].append((RECALL, rule, True))
    return _assemble(turns, recalls, noise)


def exponential_gap(rng: random.Random, mean: float) -> int:
    return max(1, round(rng.expovariate(1.0 / mean)))


def heavy_tail_gap(rng: random.Random, largest: float) -> int:
    """Log-uniform on [1, largest]: many short gaps and a few very long ones."""
    return max(1, round(math.exp(rng.uniform(0.0, math.log(largest)))))


def random_session(rng: random.Random, *, turns: int, noise: int, heavy_tail: bool) -> Session:
    """Rules reused after random gaps (mean ~20 turns either way); noise reused at
    random ages (mean ~3 turns), as much reuse as registration."""
    recalls: list[list[Event]] = [[] for _ in range(turns)]
    for rule in _rule_ids():
        turn = 1
        while True:
            turn += heavy_tail_gap(rng, 100.0) if heavy_tail else exponential_gap(rng, 20.0)
            if turn >= turns:
                break
            recalls[turn].append((RECALL, rule, True))
    for turn in range(2, turns):
        for _ in range(noise):
            age = 1 + math.floor(rng.expovariate(1 / 2.5))
            index = rng.randrange(noise)
            if age < turn:
                recalls[turn].append((RECALL, _noise(turn - age, index), False))
    return _assemble(turns, recalls, noise)
