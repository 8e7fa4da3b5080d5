"""What machine a benchmark ran on, printed with its figures."""

from __future__ import annotations

import os
import platform
import time


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _memory_gib() -> float:
    try:
        with open("/proc/meminfo") as meminfo:
            kib = int(meminfo.readline().split()[1])
        return kib / 1024 / 1024
    except (OSError, ValueError, IndexError):
        return 0.0


def machine_describe() -> str:
    return (
        f"machine: {os.cpu_count()} cores, {_cpu_model()}, {_memory_gib():.1f} GiB RAM, "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}"
    )


def machine_speed() -> str:
    """A 20-million-iteration Python loop: its wall and CPU seconds (bench/first_import.py's
    measure: 0.87 s on a Xeon, 2.9-3.2 s on a slow EPYC, idle), and the load: how fast this
    machine runs now, and the share of a core this process got."""
    started, cpu = time.perf_counter(), time.process_time()
    total = 0
    for i in range(20_000_000):
        total += i
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    return (f"speed: a 20-million-iteration Python loop in {wall:.2f} s wall, {cpu:.2f} s CPU "
            f"(load {load})")


if __name__ == "__main__":
    print(machine_describe())
    print(machine_speed())
