"""How long `cortex decaybench` takes on its defaults (target: under 10 s), as the CLI runs it.

    python bench/decaybench_runtime.py [--repeat N]

Runs `manage.py decaybench` (and once with `--plot`) in a subprocess, checks that every
run printed the same bytes, and prints wall times and the machine.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import machine_describe  # noqa: E402


def _timed(*args: str) -> tuple[float, bytes]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "manage.py"), "decaybench", *args],
                          capture_output=True, check=True, cwd=ROOT)
    return time.perf_counter() - started, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    runs = [_timed() for _ in range(repeat)]
    with tempfile.TemporaryDirectory() as tmp:
        plotted = _timed("--plot", str(Path(tmp) / "decaybench.png"))
    outputs = {output for _, output in runs} | {plotted[1]}
    times = [seconds for seconds, _ in runs]
    print(f"cortex decaybench (defaults), {repeat} runs: median {statistics.median(times):.2f} s,"
          f" max {max(times):.2f} s (target < 10 s); with --plot: {plotted[0]:.2f} s")
    print(f"identical output across runs: {len(outputs) == 1}")
    print(machine_describe())


if __name__ == "__main__":
    main()
