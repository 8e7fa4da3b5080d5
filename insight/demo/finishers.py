"""The end of `cortex demo` that apps above insight add (insight imports none of them):
actuation registers its part from its `AppConfig.ready()`, which the demo runs last and
prints as one more table."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class DemoContext:
    out: Path
    repo: Path | None
    as_of: datetime


@dataclass
class DemoSection:
    title: str
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


DemoFinisher = Callable[[DemoContext], DemoSection]
_finishers: dict[str, DemoFinisher] = {}


def demo_finisher_register(name: str, finisher: DemoFinisher) -> None:
    _finishers[name] = finisher


def demo_finishers_run(context: DemoContext) -> list[DemoSection]:
    return [_finishers[name](context) for name in sorted(_finishers)]
