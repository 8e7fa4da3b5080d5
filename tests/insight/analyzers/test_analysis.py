"""The analysis runner over the real event log: every category end to end, idempotent
re-analysis, batches, cursors, the task chain, and the late-commit-safe reader."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from insight import analyzers as registry
from insight.analyzers.base import Analyzer, ObservationDraft
from insight.models import AnalyzerCursor
from insight.services.analysis import analysis_batch_run, analysis_cursors_reset, analysis_drain
from insight.tasks import analysis_run_task
from memory.config import DecayConfig
from memory.models.events import MemoryEvent
from memory.models.observations import Observation
from memory.selectors.observations import interaction_profile
from memory.services.events import event_append_many
from tests.insight.analyzers import factories as f

_CONTRACT = ("source_id", "type", "subtype", "occurred_at", "actor", "project", "correlation",
             "payload")


def store(*events: dict[str, Any]) -> list[str]:
    """Append contract-shaped events through Layer 1, as the producers do."""
    ids = []
    for source in dict.fromkeys(e["source"] for e in events):
        batch = [{k: e[k] for k in _CONTRACT} for e in events if e["source"] == source]
        ids += [r.id for r in event_append_many(source=source, events=batch)]
    return ids


def a_session() -> list[dict[str, Any]]:
    torch = "Exit code 1\nModuleNotFoundError: No module named 'torch'"
    install = f.tool_use("Bash", {"command": "npm install lodash"}, use_id="t1")
    train = f.tool_use("Bash", {"command": "python train.py"}, use_id="t2")
    write = f.tool_use("Write", {"file_path": f"{f.CWD}/app.py", "content": "import httpx\n"},
                       use_id="t3")
    return [
        f.prompt("Always use pnpm. Fix the build please."),
        f.assistant_text("I'll look at the build script."),
        install,
        f.tool_result("The user doesn't want to proceed with this tool use. The tool use was "
                      "rejected. The user provided the following reason for the rejection: "
                      "use pnpm", use_id="t1", is_error=True, call=install),
        train,
        f.tool_result(torch, use_id="t2", is_error=True, call=train),
        f.prompt("non, c'est faux. Je préfère les tabs aux espaces."),
        write,
        f.tool_result("File created", use_id="t3", call=write),
        f.interrupt(),
        f.commit("c0ffee", "fix: the cursor", [("memory/cursor.py", 3, 1)]),
    ]


def _analyze(*extra: str) -> dict[str, Any]:
    out = StringIO()
    call_command("analyze", "--json", *extra, stdout=out)
    data: dict[str, Any] = json.loads(out.getvalue())
    return data


@pytest.mark.django_db
class TestEndToEnd:
    def test_every_category_comes_out_with_real_provenance(self) -> None:
        ids = set(store(*a_session()))
        summary = _analyze()
        assert summary["events"] == {"claude-code": 10, "git": 1, "gh": 0,
                                     "type:memory/text": 0}
        categories = Counter(Observation.objects.values_list("category", flat=True))
        assert set(categories) == {
            "instruction", "preference", "correction", "tool_error", "permission_request",
            "project_activity", "interaction", "commit"}
        assert sum(summary["observations_created"].values()) == sum(categories.values())
        for observation in Observation.objects.all():
            assert observation.event_ids and set(observation.event_ids) <= ids
            assert observation.source.startswith("insight:")
        error = Observation.objects.get(category="tool_error")
        assert error.payload_typed["tool"] == "Bash"
        assert error.payload_typed["normalized"] == "modulenotfounderror: no module named 'torch'"

    def test_analyzing_again_or_from_the_start_creates_nothing(self) -> None:
        store(*a_session())
        _analyze()
        count = Observation.objects.count()
        assert sum(_analyze()["observations_created"].values()) == 0
        again = _analyze("--all")
        assert again["events"] == {"claude-code": 10, "git": 1, "gh": 0,
                                   "type:memory/text": 0}
        assert sum(again["observations_created"].values()) == 0
        assert Observation.objects.count() == count

    def test_each_cursor_counts_what_its_analyzer_read_and_made(self) -> None:
        store(*a_session())
        summary = _analyze("--batch-size", "3")  # 4 batches of the 10 Claude Code events
        cursors = AnalyzerCursor.objects.filter(source="claude-code")
        assert {c.analyzer for c in cursors} == set(summary["analyzed"]) - {"git_history"}
        for cursor in cursors:
            assert cursor.events_seen == 10
            assert cursor.observations_created == summary["observations_created"][cursor.analyzer]
            assert cursor.position is not None and cursor.updated_at is not None

    def test_the_batch_size_does_not_change_what_is_observed(self) -> None:
        store(*a_session())
        _analyze("--batch-size", "2")
        keys = set(Observation.objects.values_list("dedup_key", flat=True))
        analysis_cursors_reset()
        assert sum(_analyze("--batch-size", "1000")["observations_created"].values()) == 0
        assert set(Observation.objects.values_list("dedup_key", flat=True)) == keys

    def test_a_tool_call_read_in_an_earlier_batch_still_names_the_error(self) -> None:
        store(f.tool_use("Edit", {"file_path": "/a.py", "old_string": "x", "new_string": "y"},
                         use_id="t9"))
        _analyze()
        call = MemoryEvent.objects.get(subtype="assistant.tool_use")
        store(f.tool_result("<tool_use_error>String to replace not found in file.",
                            use_id="t9", is_error=True, call={"source_id": call.source_id}))
        _analyze()
        assert Observation.objects.get(category="tool_error").payload_typed["tool"] == "Edit"

    def test_mostly_directive_with_the_agent_expressive_with_a_person(self) -> None:
        store(f.prompt("Fix the parser."), f.prompt("Run the tests."), f.prompt("Thanks!"),
              f.gh_item(3, "anya", "Add the export"), f.gh_reply(3, "op", "Merci, bravo !"),
              f.gh_reply(3, "op", "Great job, thank you!"))
        _analyze("--batch-size", "1")  # each reply's pull request comes as context
        agent = interaction_profile(counterpart="claude-code")
        person = interaction_profile(counterpart="anya", speaker="op")
        assert (agent.dominant, agent.acts["directive"]) == ("directive", 2)
        assert (person.dominant, person.total) == ("expressive", 2)

    def test_an_analyzer_added_later_catches_up_alone(self) -> None:
        store(*a_session())
        _analyze("--analyzer", "instructions")
        assert set(Observation.objects.values_list("category", flat=True)) == {
            "instruction", "preference"}
        summary = _analyze()
        assert "instructions" not in summary["analyzed"]
        assert summary["analyzed"]["speech_acts"] == 10
        cursors = AnalyzerCursor.objects.filter(source="claude-code")
        assert len({json.dumps(c.position) for c in cursors}) == 1

    def test_a_broken_draft_is_left_out_without_blocking_the_others(
        self, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
    ) -> None:
        def broken(events: Any) -> list[ObservationDraft]:
            return [ObservationDraft(category="nonsense", target_namespace="agent:x:rc",
                                     topic="", timestamp=datetime(2025, 1, 1, tzinfo=UTC),
                                     event_ids=(str(events[0]["id"]),), payload={})]
        monkeypatch.setitem(registry.ANALYZERS, "broken",
                            Analyzer(name="broken", sources=("claude-code",), analyze=broken))
        store(f.prompt("Always use uv."))
        report = analysis_batch_run(source="claude-code")
        assert report.rejected == 1 and report.events == 1
        assert Observation.objects.filter(category="instruction").exists()
        assert "analyzer draft rejected" in caplog.text

    def test_the_task_chain_goes_on_while_events_remain(
        self, django_capture_on_commit_callbacks: Callable[..., Any]
    ) -> None:
        store(*[f.prompt(f"Always use tool{i}.") for i in range(5)])
        runs = 0
        while True:
            with django_capture_on_commit_callbacks() as queued:
                result = analysis_run_task.apply(args=("claude-code", 2)).get()
            runs += 1
            # The next link of the chain, queued after commit (beside the Retain Job's task
            # for the new observations).
            chain = [q for q in queued if "memory.retain" not in repr(q)]
            if not chain:
                break
            assert len(chain) == 1
        assert runs == 3 and result["events"] == 1  # batches of 2, 2 and 1: then done
        assert Observation.objects.filter(category="instruction").count() == 5


class Worker(threading.Thread):
    def __init__(self, work: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self.work, self.error = work, None

    def run(self) -> None:
        try:
            self.work()
        except BaseException as error:  # noqa: BLE001 - reported by the test
            self.error = error  # type: ignore[assignment]
        finally:
            connection.close()


@contextmanager
def _held_open(event: dict[str, Any]) -> Iterator[threading.Event]:
    """Store `event` in a transaction on another connection, committed on release."""
    inserted, release = threading.Event(), threading.Event()

    def hold() -> None:
        with transaction.atomic():
            store(event)
            inserted.set()
            release.wait(60)

    worker = Worker(hold)
    worker.start()
    assert inserted.wait(60)
    try:
        yield release
    finally:
        release.set()
        worker.join(60)
        assert worker.error is None


@pytest.mark.django_db(transaction=True)
def test_an_event_committed_late_is_analyzed_not_skipped() -> None:
    with _held_open(f.prompt("Always use ruff.")) as release:
        store(f.prompt("Never use flake8."))
        assert analysis_batch_run(source="claude-code", analyzers=["instructions"]).events == 0
        release.set()
    analysis_batch_run(source="claude-code", analyzers=["instructions"])
    claims = set(Observation.objects.values_list("payload_typed__claim", flat=True))
    assert claims == {"use ruff", "use flake8"}


def _claims() -> set[str]:
    return set(Observation.objects.values_list("payload_typed__claim", flat=True))


@pytest.mark.django_db(transaction=True)
def test_a_drain_waits_for_the_transaction_that_holds_committed_events_back() -> None:
    with _held_open(f.prompt("Always use ruff.")) as release:
        store(f.prompt("Never use flake8."))  # committed, but behind the open transaction
        threading.Timer(0.5, release.set).start()
        totals = analysis_drain(sources=["claude-code"], analyzers=["instructions"])
    assert (totals.events["claude-code"], totals.held_back) == (2, [])
    assert _claims() == {"use ruff", "use flake8"}


@pytest.mark.django_db(transaction=True)
def test_a_drain_says_which_sources_an_open_transaction_still_holds_back(
    config: DecayConfig, swap_config: Callable[[DecayConfig], DecayConfig]
) -> None:
    swap_config(dataclasses.replace(config, analysis=dataclasses.replace(
        config.analysis, horizon_wait_seconds=0.2)))
    with _held_open(f.prompt("Always use ruff.")):
        store(f.prompt("Never use flake8."))
        out = StringIO()
        call_command("analyze", "--source", "claude-code", "--analyzer", "instructions",
                     stdout=out)
        assert "events of claude-code wait behind a transaction still open" in out.getvalue()
        assert _claims() == set()
    totals = analysis_drain(sources=["claude-code"], analyzers=["instructions"])
    assert (totals.events["claude-code"], totals.held_back) == (2, [])
    assert _claims() == {"use ruff", "use flake8"}


@pytest.mark.django_db
def test_an_analyzer_crashing_on_one_event_skips_only_that_event(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    instructions = registry.ANALYZERS["instructions"]

    def fragile(events: Any) -> list[ObservationDraft]:
        if any("poison" in str(e["payload"]) for e in events if not e.get("context")):
            raise ValueError("cannot read this one")
        return instructions.analyze(events)

    monkeypatch.setitem(registry.ANALYZERS, "instructions",
                        Analyzer(name="instructions", sources=("claude-code",), analyze=fragile))
    store(f.prompt("Always use uv."), f.prompt("poison"), f.prompt("Never use pip."))
    report = analysis_batch_run(source="claude-code", analyzers=["instructions"])
    assert (report.events, report.created["instructions"]) == (3, 2)
    assert "skips event" in caplog.text
