"""What machine a benchmark ran on, printed with its figures."""

from __future__ import annotations

import os
import platform


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


if __name__ == "__main__":
    print(machine_describe())
