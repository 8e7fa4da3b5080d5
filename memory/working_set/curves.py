"""The data behind `decaybench --plot`: one session traced turn by turn, and recall
against the working-set budget. Pure and deterministic, like the tables."""

from __future__ import annotations

from dataclasses import dataclass, field

from memory.working_set.base import TurnMemory
from memory.working_set.bench import (
    BenchConfig,
    Policy,
    budgeted,
    document_maker,
    engine,
    engine_budget,
    random_maker,
    run_setting,
    sessions,
    window,
)
from memory.working_set.engine import DecayEngine
from memory.working_set.replay import replay
from memory.working_set.sessions import RECALL
from memory.working_set.strength import StrengthModel

TRACKED_RULE = "rule-0"
TRACKED_NOISE = "noise-1-0"
# Of the engine's own mean size; the scripted rules need a far larger LRU budget to last.
DOCUMENT_MULTIPLES = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
RANDOM_MULTIPLES = (0.25, 0.5, 0.75, 1.0, 1.5, 3.0)


@dataclass
class Trace:
    policy: str
    turns: list[int] = field(default_factory=list)
    rule_present: list[bool] = field(default_factory=list)
    noise_present: list[bool] = field(default_factory=list)
    rule_score: list[float | None] = field(default_factory=list)
    noise_score: list[float | None] = field(default_factory=list)

    def observe(self, turn: int, memory: TurnMemory) -> None:
        self.turns.append(turn)
        self.rule_present.append(memory.is_present(TRACKED_RULE))
        self.noise_present.append(memory.is_present(TRACKED_NOISE))
        self.rule_score.append(_score(memory, TRACKED_RULE, turn))
        self.noise_score.append(_score(memory, TRACKED_NOISE, turn))


def _score(memory: TurnMemory, mem_id: str, turn: int) -> float | None:
    if isinstance(memory, DecayEngine):
        return memory.retention(mem_id, turn)
    if isinstance(memory, StrengthModel):
        return memory.strength(mem_id, turn)
    return None


def traced_policies(budget: int) -> list[tuple[str, Policy]]:
    strength = Policy("strength", "threshold=0.35", StrengthModel)
    capped = [(f"{policy.name} @ {budget}", policy) for policy in budgeted(budget)]
    return [("engine", engine()), ("window 15", window()), ("strength", strength), *capped]


def traces(config: BenchConfig, budget: int) -> list[Trace]:
    """The first session of the document's setting, under each policy."""
    session = next(sessions(config, "document", document_maker(config, config.noise)))
    result = []
    for label, policy in traced_policies(budget):
        trace = Trace(policy=label)
        replay(policy.make(), session, trace.observe)
        result.append(trace)
    return result


@dataclass(frozen=True)
class Sweep:
    setting: str
    metric: str
    budgets: list[int]
    recall: dict[str, list[float]]


def sweep(config: BenchConfig, setting: str, family: str, random_reuse: bool) -> Sweep:
    maker = (random_maker(config, heavy_tail=False) if random_reuse
             else document_maker(config, config.noise))
    (free,) = run_setting(config, family, maker, [engine()])
    multiples = RANDOM_MULTIPLES if random_reuse else DOCUMENT_MULTIPLES
    budgets = sorted({max(1, round(engine_budget(free) * k)) for k in multiples})
    grid = [(budget, policy) for budget in budgets for policy in budgeted(budget)]
    summaries = run_setting(config, family, maker, [policy for _, policy in grid])
    recall: dict[str, list[float]] = {}
    for (_, policy), summary in zip(grid, summaries, strict=True):
        value = summary.foundational_hit_rate if random_reuse else summary.foundational_recall
        recall.setdefault(policy.name, []).append(value)
    metric = "rule hit rate" if random_reuse else "foundational recall at the last turn"
    return Sweep(setting=setting, metric=metric, budgets=budgets, recall=recall)


def tracked_rule_recalls(config: BenchConfig) -> list[int]:
    session = next(sessions(config, "document", document_maker(config, config.noise)))
    return [turn for turn, events in enumerate(session.events)
            if any(mem_id == TRACKED_RULE and kind == RECALL for kind, mem_id, _ in events)]
