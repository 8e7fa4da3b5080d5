"""`cortex demo`: the whole loop once on the generated corpus, and again with nothing new."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command, load_command_class
from django.db.models import Max, Min

from insight.demo.corpus import corpus_write
from insight.demo.run import ANCHOR_FILE, demo_run
from memory import clock
from memory.admin.plots import crossings_svg
from memory.config import config_get
from memory.models import (
    Entity,
    EntityTransition,
    Fact,
    MemoryEvent,
    Observation,
    ObservationStatus,
    RelationTransition,
    SleepCycleRun,
)
from memory.selectors.dashboard import crossings_per_day
from memory.selectors.entities import STRENGTH_NOW, entity_with_strength

# A date the corpus never had (its fixed one is in March 2026), with microseconds.
LATER = datetime(2027, 1, 14, 16, 20, 33, 250000, tzinfo=UTC)


def _stamp(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _dates_apart(record: dict[str, Any]) -> tuple[dict[str, Any], list[datetime]]:
    """The record without its dates (a top-level `timestamp`, a snapshot's own), and them."""
    rest, dates = dict(record), []
    if "timestamp" in rest:
        dates.append(_stamp(rest.pop("timestamp")))
    if isinstance(rest.get("snapshot"), dict) and "timestamp" in rest["snapshot"]:
        rest["snapshot"] = dict(rest["snapshot"])
        dates.append(_stamp(rest["snapshot"].pop("timestamp")))
    return rest, dates


def test_the_corpus_dated_to_end_later_is_the_same_corpus_moved(tmp_path: Path) -> None:
    fixed = corpus_write(tmp_path / "fixed", seed=7, git=False)
    moved = corpus_write(tmp_path / "moved", seed=7, git=False, ends_at=LATER)
    assert fixed.ended_at is not None and moved.ended_at == LATER
    shift = LATER - fixed.ended_at
    names = sorted(p.relative_to(fixed.projects_root) for p in fixed.files)
    assert names == sorted(p.relative_to(moved.projects_root) for p in moved.files)
    for name in names:
        before = [json.loads(line) for line in
                  (fixed.projects_root / name).read_bytes().splitlines()]
        after = [json.loads(line) for line in
                 (moved.projects_root / name).read_bytes().splitlines()]
        assert len(after) == len(before)
        for old, new in zip(before, after, strict=True):
            (old_rest, old_dates), (new_rest, new_dates) = _dates_apart(old), _dates_apart(new)
            assert new_rest == old_rest
            # moved by the shift (each written to the millisecond)
            assert [abs(n - o - shift) < timedelta(milliseconds=1)
                    for o, n in zip(old_dates, new_dates, strict=True)] == [True] * len(old_dates)
        # the file's time is its last line's, moved too
        assert (moved.projects_root / name).stat().st_mtime == pytest.approx(
            (fixed.projects_root / name).stat().st_mtime + shift.total_seconds())
    latest = max(date for path in moved.files for line in path.read_bytes().splitlines()
                 for date in _dates_apart(json.loads(line))[1])
    assert latest == LATER.replace(microsecond=LATER.microsecond // 1000 * 1000)


@pytest.mark.django_db(transaction=True)
def test_demo_runs_every_layer_and_a_second_run_adds_nothing(tmp_path: Path) -> None:
    now = clock.now()
    with clock.frozen(now):
        first = demo_run(out=tmp_path / "demo")

    # Its last session ended shortly before it ran, and it is read now: the graph is alive.
    last = MemoryEvent.objects.filter(source="claude-code").aggregate(at=Max("occurred_at"))
    assert now - timedelta(hours=1) < last["at"] < now
    assert first.as_of == now
    threshold = config_get().thresholds.entity_strength
    alive = entity_with_strength(now=now).filter(**{f"{STRENGTH_NOW}__gte": threshold})
    assert alive.filter(key="agent:claude-code:instruction:use-uv").exists()
    assert alive.count() > Entity.objects.count() // 2
    assert first.ingest.sessions.events_stored > 100
    assert first.ingest.git is not None and first.ingest.git.events_stored > 100
    categories = set(first.analysis.observations_created)
    assert {"instructions", "corrections", "tool_errors", "permissions"} <= categories
    assert first.retain.processed == Observation.objects.count()
    assert not Observation.objects.filter(status=ObservationStatus.PENDING).exists()
    assert first.sleep_cycle.status == "succeeded"
    assert first.graph.counts["entities"] == Entity.objects.count() > 20
    assert first.graph.strongest
    # "Never use requests" in billing-api, "always use requests in this project" in cortex
    # and data-pipeline: each holds in its own projects, no conflict (issue 25).
    assert first.graph.conflicts == []
    assert sorted(Fact.objects.filter(entity__key="agent:claude-code:instruction:use-requests")
                  .values_list("claim", "scope")) == [
        ("always use requests", "project:cortex, project:data-pipeline (in this project)"),
        ("never use requests", "project:billing-api")]

    # Recall names a rule with its polarity (issue 25, item 1): "never use npm", not "use npm".
    recall = first.sections[0]
    rules = [row for row in recall.rows if row[0].startswith("agent:claude-code:instruction:")]
    assert rules and all(row[3].split()[0] in ("always", "never") for row in rules), rules

    # The corpus was lived night by night (issue 25, item 8): a sleep cycle as of each night
    # of its sessions' days (03:00, the beat's hour), so the console's "threshold crossings,
    # last 30 days" plots show that history.
    first_line = MemoryEvent.objects.filter(source="claude-code").aggregate(
        at=Min("occurred_at"))["at"]
    # The corpus lives one night before its first session (the 03:00 in the day before it),
    # which is the previous calendar day's when that session starts before 03:00.
    night = first_line.replace(hour=3, minute=0, second=0, microsecond=0)
    if night > first_line:
        night -= timedelta(days=1)
    nights = [night + timedelta(days=i) for i in range((last["at"] - night).days + 1)]
    runs = list(SleepCycleRun.objects.order_by("as_of").values_list("as_of", flat=True))
    assert runs[-1] == now and set(runs[:-1]) <= set(nights) and first.nights == len(runs) - 1
    assert len(runs) - 1 >= len(nights) - 1  # a night inside a session may be skipped
    crossed = EntityTransition.objects.count() + RelationTransition.objects.count()
    plotted = crossings_per_day(days=30, now=now)
    assert sum(d.rose + d.fell for days in plotted.values() for d in days) == crossed > 0
    assert "rose</title>" in str(crossings_svg(plotted["entities"], label="entity crossings"))

    events, observations = MemoryEvent.objects.count(), Observation.objects.count()
    # Run again later into the same directory: the corpus keeps the dates it was given.
    ended_at = json.loads((tmp_path / "demo" / ANCHOR_FILE).read_text())["ended_at"]
    with clock.frozen(now + timedelta(days=2)):
        second = demo_run(out=tmp_path / "demo")
    assert json.loads((tmp_path / "demo" / ANCHOR_FILE).read_text())["ended_at"] == ended_at
    assert second.ingest.sessions.events_stored == 0
    assert MemoryEvent.objects.count() == events
    assert Observation.objects.count() == observations
    # its nights were lived already: only its own run is added, never one backwards
    assert SleepCycleRun.objects.count() == len(runs) + 1 and second.nights == 0


@pytest.mark.django_db(transaction=True)
def test_demo_command_prints_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    call_command("demo", out=tmp_path / "demo")
    output = capsys.readouterr().out
    for heading in ("counts per layer", "Strongest entities", "Routes", "Open conflicts",
                    "Recall:", "Context for billing-api"):
        assert heading in output
    assert "<cortex-context" in output and "</cortex-context>" in output
    # read as of the end of its corpus, not months later when all of it has faded: the
    # context holds the operator's rules for the project
    assert "rule `never use requests`; instead `use httpx`; holds in billing-api" in output


def test_demo_help_says_what_options_and_an_example() -> None:
    parser = load_command_class("insight", "demo").create_parser("cortex", "demo")
    text = parser.format_help()
    assert [o for o in ("--settings", "--pythonpath", "--skip-checks", "--traceback",
                        "--verbosity") if o in text] == []
    assert "examples:\n  cortex demo" in text
    assert all(a.help for a in parser._actions if a.dest in ("seed", "out"))
