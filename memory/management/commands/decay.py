"""`cortex decay curve`: what the config does, before living with it.

    cortex decay curve NAMESPACE [--days N] [--valence V] [--retrievals N]
                                 [--pos N --neg N] [--route R] [--json]
    cortex decay curve --relation-type T [--days N] [--json]
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandError, CommandParser

from memory.config import ROUTES, VALENCES, config_get
from memory.decay.curve import Curve, entity_curve, relation_curve
from memory.management.base import CortexCommand, subcommand_add

_BAR = 40
_MAX_DAYS = 36_500


def _count(value: str) -> int:
    number = int(value)
    if number < 0:
        raise ValueError(value)
    return number


EXAMPLES = ("cortex decay curve world:project --days 60",
            "cortex decay curve agent:*:rc --retrievals 3 --pos 1",
            "cortex decay curve --relation-type works_on --json")


class Command(CortexCommand):
    help = ("What config/decay.yaml does: a strength (entity) or weight (relation) curve day "
            "by day, and the day it crosses its threshold.")
    examples = EXAMPLES

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        curve = subcommand_add(actions, "curve", help=self.help, examples=EXAMPLES)
        curve.add_argument("namespace", nargs="?",
                           help="a namespace path, e.g. world:project or agent:*:rc")
        curve.add_argument("--relation-type", help="a relation type instead of a namespace")
        curve.add_argument("--days", type=_count, help="how many days (default: 90, or past "
                                                       "the crossing)")
        curve.add_argument("--valence", choices=VALENCES, help="default: the namespace's")
        curve.add_argument("--retrievals", type=_count, default=0,
                           help="recalls so far (default 0)")
        curve.add_argument("--pos", type=_count, default=0, help="positive outcomes")
        curve.add_argument("--neg", type=_count, default=0, help="negative outcomes")
        curve.add_argument("--route", choices=ROUTES, default="normal",
                           help="the Retain Job's route (default normal)")
        curve.add_argument("--json", action="store_true", help="one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        curve, unit = self._curve(options)
        if options["json"]:
            self.stdout.write(json.dumps(curve.as_json()))
        else:
            self._print(curve, unit)

    def _curve(self, options: dict[str, Any]) -> tuple[Curve, str]:
        namespace, relation_type, days = (options["namespace"], options["relation_type"],
                                          options["days"])
        if bool(namespace) == bool(relation_type):
            raise CommandError("give either a NAMESPACE or --relation-type, not both")
        if days is not None and days > _MAX_DAYS:
            raise CommandError(f"--days: at most {_MAX_DAYS}")
        config = config_get()
        if relation_type:
            return relation_curve(relation_type=relation_type, config=config, days=days), "weight"
        node = config.taxonomy.resolved.get(namespace) or config.taxonomy.node_for(namespace)
        if node is None:
            raise CommandError(f"{namespace!r} is not in the taxonomy (config/decay.yaml)")
        curve = entity_curve(
            node=node, config=config, days=days, valence=options["valence"],
            retrievals=options["retrievals"], pos=options["pos"], neg=options["neg"],
            route=options["route"],
        )
        return curve, "strength"

    def _print(self, curve: Curve, unit: str) -> None:
        threshold = curve.params["threshold"]
        self.stdout.write("  ".join(f"{k}={_fmt(v)}" for k, v in curve.params.items()))
        values = [v for _, v in curve.points if v is not None]
        top = max([*values, threshold]) or 1.0
        mark = round(threshold / top * _BAR)
        self.stdout.write(f"{'day':>5}  {unit:>8}")
        for day, value in curve.points:
            if value is None:
                self.stdout.write(f"{day:>5}  {'pinned':>8}")
                continue
            bar = list("#" * round(value / top * _BAR) + " " * _BAR)[: _BAR + 1]
            bar[mark] = "|" if bar[mark] == " " else bar[mark]
            self.stdout.write(f"{day:>5}  {value:8.4f}  {''.join(bar).rstrip()}")
        self.stdout.write(_crossing_line(curve, unit, threshold))


def _crossing_line(curve: Curve, unit: str, threshold: float) -> str:
    if curve.crosses_at_day is None:
        return f"never crosses {threshold:g} (pinned)"
    return f"{unit} crosses {threshold:g} at day {curve.crosses_at_day:.2f}"


def _fmt(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)
