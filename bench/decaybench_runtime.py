"""How long `cortex decaybench` takes on its defaults (target: under 10 s), as users run it.

    python bench/decaybench_runtime.py [--repeat N]

Runs the `cortex` console script (which runs the benchmark without Django), once with
`--plot`, and once as `manage.py decaybench` (Django and the embedded servers start),
each in a subprocess; checks that every run printed the same bytes; prints wall and CPU
times, the load on the machine and the machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import machine_describe  # noqa: E402


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


CORTEX = [sys.executable, "-c", "import sys; from cortex_site.cli import main; "
                                 "sys.argv[0] = 'cortex'; main()", "decaybench"]
MANAGE = [sys.executable, str(ROOT / "manage.py"), "decaybench"]


def _timed(command: list[str], *args: str) -> tuple[float, float, bytes]:
    """Wall seconds, CPU seconds (less affected by other load on the machine), stdout."""
    started, cpu = time.perf_counter(), _cpu()
    done = subprocess.run([*command, *args], capture_output=True, check=True, cwd=ROOT)
    return time.perf_counter() - started, _cpu() - cpu, done.stdout


def main() -> None:
    load = os.getloadavg()
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    runs = [_timed(CORTEX) for _ in range(repeat)]
    with tempfile.TemporaryDirectory() as tmp:
        plotted = _timed(CORTEX, "--plot", str(Path(tmp) / "decaybench.png"))
    managed = _timed(MANAGE)
    outputs = {output for _, _, output in runs} | {plotted[2], managed[2]}
    walls = [wall for wall, _, _ in runs]
    cpus = [cpu for _, cpu, _ in runs]
    print(f"cortex decaybench (defaults), {repeat} runs: wall median {statistics.median(walls):.2f}"
          f" s, max {max(walls):.2f} s (target < 10 s); CPU median {statistics.median(cpus):.2f} s")
    print(f"with --plot: wall {plotted[0]:.2f} s, CPU {plotted[1]:.2f} s")
    print(f"as manage.py decaybench (Django, embedded servers as configured): wall"
          f" {managed[0]:.2f} s, CPU {managed[1]:.2f} s")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load)}")
    print(f"identical output across runs: {len(outputs) == 1}")
    print(machine_describe())


if __name__ == "__main__":
    main()
