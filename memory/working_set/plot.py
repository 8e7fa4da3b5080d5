"""`decaybench --plot PATH`: retention over turns, and recall against the budget (PNG)."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

from memory.working_set.bench import BenchConfig
from memory.working_set.curves import (
    TRACKED_NOISE,
    TRACKED_RULE,
    Sweep,
    Trace,
    sweep,
    traces,
    tracked_rule_recalls,
)
from memory.working_set.engine import DEFAULT_EVICTION_THRESHOLD
from memory.working_set.strength import DEFAULT_STRENGTH_THRESHOLD

if TYPE_CHECKING:
    from matplotlib.axes import Axes

PLOT_NEEDS = "--plot needs matplotlib, which is not installed: pip install 'cortex[plot]'"

COLOURS = {"engine": "tab:blue", "lru": "tab:orange", "lfu": "tab:green",
           "pin+lru": "tab:purple", "strength": "tab:red"}


def plot_available() -> bool:
    """Whether matplotlib (the optional `plot` extra) is installed."""
    return find_spec("matplotlib") is not None


def _spans(turns: list[int], present: list[bool]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for turn, here in zip(turns, present, strict=True):
        if here and spans and spans[-1][0] + spans[-1][1] == turn:
            spans[-1] = (spans[-1][0], spans[-1][1] + 1)
        elif here:
            spans.append((turn, 1))
    return spans


def _masked(values: list[float | None]) -> list[float]:
    return [float("nan") if value is None else value for value in values]


def _scores(ax: Axes, runs: list[Trace], recalls: list[int]) -> None:
    for run, colour, threshold in ((runs[0], "tab:blue", DEFAULT_EVICTION_THRESHOLD),
                                   (runs[2], "tab:red", DEFAULT_STRENGTH_THRESHOLD)):
        ax.plot(run.turns, _masked(run.rule_score), color=colour,
                label=f"{run.policy}: {TRACKED_RULE}")
        ax.plot(run.turns, _masked(run.noise_score), color=colour, linestyle="--",
                label=f"{run.policy}: {TRACKED_NOISE}")
        ax.axhline(threshold, color=colour, linestyle=":", linewidth=1)
    for turn in recalls:
        ax.axvline(turn, color="grey", linewidth=0.6)
    ax.set_title("Retention (engine) and strength (Cortex model), one session")
    ax.set_xlabel("turn (grey: the rule is recalled; dotted: eviction thresholds)")
    ax.set_ylabel("score")
    ax.legend(fontsize=7)


def _presence(ax: Axes, runs: list[Trace], recalls: list[int]) -> None:
    for row, run in enumerate(runs):
        ax.broken_barh(_spans(run.turns, run.rule_present), (row - 0.35, 0.4),
                       facecolors="tab:blue")
        ax.broken_barh(_spans(run.turns, run.noise_present), (row + 0.1, 0.2),
                       facecolors="tab:grey")
    for turn in recalls:
        ax.axvline(turn, color="grey", linewidth=0.6)
    ax.set_yticks(range(len(runs)), [run.policy for run in runs], fontsize=8)
    ax.invert_yaxis()
    ax.set_title(f"Present in the working set: {TRACKED_RULE} (blue), {TRACKED_NOISE} (grey)")
    ax.set_xlabel("turn")


def _sweep(ax: Axes, data: Sweep) -> None:
    for policy, values in data.recall.items():
        ax.plot(data.budgets, values, marker="o", markersize=3, label=policy,
                color=COLOURS.get(policy))
    ax.set_xscale("log")
    ax.set_xticks(data.budgets, [str(budget) for budget in data.budgets])
    ax.minorticks_off()
    ax.set_ylim(-0.05, 1.05)
    ax.set_title(f"{data.setting}: {data.metric} against the budget")
    ax.set_xlabel("working-set budget (items)")
    ax.set_ylabel(data.metric)
    ax.legend(fontsize=7)


def plot_write(*, config: BenchConfig, path: Path, budget: int) -> None:
    # matplotlib is optional (the `plot` extra): imported only to write a plot (Agg via savefig).
    from matplotlib.figure import Figure

    figure = Figure(figsize=(14, 10), layout="constrained")
    (scores, presence), (document, randomised) = figure.subplots(2, 2)
    runs = traces(config, budget)
    recalls = tracked_rule_recalls(config)
    _scores(scores, runs, recalls)
    _presence(presence, runs, recalls)
    _sweep(document, sweep(config, "document", "document", random_reuse=False))
    _sweep(randomised, sweep(config, "random reuse (exponential gaps)", "random-exponential",
                             random_reuse=True))
    figure.suptitle(f"cortex decaybench  sessions={config.sessions} turns={config.turns} "
                    f"noise={config.noise} seed={config.seed}")
    figure.savefig(path, format="png", dpi=100, metadata={"Software": None})
