"""`cortex decaybench` without Django: the benchmark needs no database and no broker, so the
console script runs it here instead of starting the embedded servers for nothing.
`python manage.py decaybench` goes through the management command, which shares this
parser and this code path: both print the same bytes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from memory.working_set.base import InvalidParameter
from memory.working_set.bench import BenchConfig, render_json, render_table, run
from memory.working_set.plot import PLOT_NEEDS, plot_available, plot_write

DESCRIPTION = ("The turn-based engine against a sliding window (the document's benchmark), "
               "then against stronger baselines at the same working-set budget. "
               "Deterministic: the same arguments print the same bytes.")

EXAMPLES = ("examples:\n  cortex decaybench\n  cortex decaybench --seed 7 --format json\n"
            "  cortex decaybench --plot docs/decaybench.png")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = BenchConfig()
    parser.add_argument("--sessions", type=int, default=defaults.sessions,
                        help=f"simulated sessions (default {defaults.sessions})")
    parser.add_argument("--turns", type=int, default=defaults.turns,
                        help=f"turns per session (default {defaults.turns})")
    parser.add_argument("--noise", type=int, default=defaults.noise,
                        help="noise items registered per turn")
    parser.add_argument("--seed", type=int, default=defaults.seed,
                        help=f"the random seed (default {defaults.seed})")
    parser.add_argument("--format", choices=["table", "json"], default="table",
                        help="a table (default) or JSON rows")
    parser.add_argument("--plot", type=Path, metavar="PATH",
                        help="also write a PNG: retention over turns, recall against the budget")


def execute(*, sessions: int, turns: int, noise: int, seed: int, format: str,
            plot: Path | None, stdout: TextIO, stderr: TextIO) -> None:
    """Raises InvalidParameter for arguments out of range, or --plot without matplotlib."""
    if plot is not None and not plot_available():
        raise InvalidParameter(PLOT_NEEDS)
    config = BenchConfig(sessions=sessions, turns=turns, noise=noise, seed=seed)
    rows = run(config)
    stdout.write(render_json(rows) if format == "json" else render_table(rows, config))
    if plot is not None:
        budget = next(row.budget for row in rows
                      if row.setting == "fair-document" and row.budget is not None)
        plot_write(config=config, path=plot, budget=budget)
        stderr.write(f"plot written to {plot}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cortex decaybench", description=DESCRIPTION,
                                     epilog=EXAMPLES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        execute(**vars(args), stdout=sys.stdout, stderr=sys.stderr)
    except InvalidParameter as error:
        parser.error(str(error))
    return 0
