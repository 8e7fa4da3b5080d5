"""A rich progress bar for `cortex ingest` (files, MB, events; with the stages that follow the
raw log: observations, retained, entities, vectors; rate and time left) and its summary
table."""

from __future__ import annotations

import time
from typing import Any, Protocol

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from insight.producers.base import IngestSummary
from insight.services.first_import import StageTally


class Stages(Protocol):
    """The stages after the raw log (insight/management/first_import.py)."""

    def events_stored(self, count: int) -> None: ...

    def poll(self) -> None: ...

    def tally(self) -> StageTally: ...


class RichProgress:
    def __init__(self, console: Console, *, enabled: bool, stages: Stages | None = None) -> None:
        self.console, self.enabled, self.stages = console, enabled, stages
        self.raw_finished: float | None = None
        self.bar: Progress | None = None
        self.task: TaskID | None = None
        self.files = self.total_files = self.events = 0
        self.bytes = self.total_bytes = 0
        self.started = time.monotonic()
        self.last_draw = 0.0

    def __enter__(self) -> RichProgress:
        if self.enabled:
            self.bar = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(bar_width=12),
                TextColumn("{task.fields[raw]}{task.fields[stages]}"), TimeElapsedColumn(),
                TextColumn("{task.fields[left]}"),
                console=self.console, transient=False,
            )
            self.bar.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self._draw(force=True)
            self.bar.__exit__(*exc)

    def start(self, *, files: int, total_bytes: int) -> None:
        self.total_files, self.started = files, time.monotonic()
        if self.bar is not None:
            self.task = self.bar.add_task("ingest", total=total_bytes or files or 1,
                                          raw="", stages="", left="")
        self.total_bytes = total_bytes
        if self.stages is not None and total_bytes:
            self.stages.events_stored(0)  # new bytes to read: start the stages beside it
            self.stages.poll()

    def advance(self, *, files: int = 0, bytes_read: int = 0, events: int = 0) -> None:
        self.files += files
        self.bytes += bytes_read
        self.events += events
        if self.stages is not None:
            if events:  # a batch committed (the writer's thread)
                self.stages.events_stored(events)
            else:  # the reading thread
                self.stages.poll()
        self._draw()

    def raw_done(self) -> None:
        """The raw log is complete: from now on the bar follows the retain stage."""
        self.raw_finished = time.monotonic()
        self._draw(force=True)

    def tick(self) -> None:
        self._draw()

    def _draw(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if self.bar is None or self.task is None or (not force and now - self.last_draw < 0.1):
            return
        self.last_draw = now
        elapsed = max(now - self.started, 1e-6)
        raw_elapsed = max((self.raw_finished or now) - self.started, 1e-6)
        tally = self.stages.tally() if self.stages is not None else None
        fields: dict[str, Any] = {
            "raw": f"{self.bytes / 1e6:,.0f}/{self.total_bytes / 1e6:,.0f} MB "
            f"{self.bytes / 1e6 / raw_elapsed:,.1f} MB/s {self.events:,} ev",
            "stages": "" if tally is None else
            f" {tally.observations_created:,} obs {tally.retained:,} ret "
            f"{tally.retained / elapsed:,.0f}/s {tally.entities_created:,} ent "
            f"{tally.embedded:,} vec",
        }
        if self.raw_finished is None or tally is None:
            done, total = (self.bytes, self.total_bytes) if self.total_bytes else (
                self.files, self.total_files)
            rate = done / raw_elapsed
        elif tally.retained < tally.observations_created or not tally.embedded:
            done, total = tally.retained, max(tally.observations_created, 1)
            rate = tally.retained / max(now - self.raw_finished, 1e-6)
            self.bar.update(self.task, description="retain")
        else:  # the last stage: the vectors of the entities' names (then the memories')
            done, total = tally.embedded, max(tally.entities_created, tally.embedded, 1)
            rate = tally.embedded / max(now - self.raw_finished, 1e-6)
            self.bar.update(self.task, description="vectors")
        left = (total - done) / rate if rate > 0 and total > done else 0.0
        self.bar.update(self.task, completed=done, total=max(total, 1),
                        left=f"~{left:,.0f}s left", **fields)


def summary_table(summary: IngestSummary) -> Table:
    data = summary.as_dict()
    table = Table(title=f"cortex ingest {summary.source}", show_header=False)
    table.add_column("what")
    table.add_column("count", justify="right")
    mb = summary.bytes_read / 1e6
    rows = [
        ("files", f"{data['files']:,}"),
        *((f"  {kind}", f"{n:,}") for kind, n in data["files_by_kind"].items()),
        ("files rewritten (read again)", f"{data['files_reset']:,}"),
        ("lines", f"{data['lines']:,}"),
        ("records", f"{data['records']:,}"),
        ("events stored", f"{data['events_stored']:,}"),
        ("duplicates skipped", f"{data['duplicates']:,}"),
        ("torn last lines (waiting)", f"{data['pending_partial_lines']:,}"),
        ("malformed", f"{sum(data['malformed'].values()):,}"),
        *((f"  {kind}", f"{n:,}") for kind, n in data["malformed"].items()),
        ("MB read", f"{mb:,.1f}"),
        ("seconds", f"{summary.seconds:,.2f}"),
        ("MB/s", f"{mb / summary.seconds:,.1f}" if summary.seconds else "-"),
    ]
    for what, count in rows:
        table.add_row(what, count)
    return table


def stages_table(tally: StageTally) -> Table:
    table = Table(title="analysis, retain and vectors", show_header=False)
    table.add_column("what")
    table.add_column("count", justify="right")
    for what, count in (("events analyzed", tally.events_analyzed),
                        ("observations created", tally.observations_created),
                        ("observations retained", tally.retained),
                        ("entities created", tally.entities_created),
                        ("observations given up", tally.gave_up),
                        ("entity names embedded", tally.embedded),
                        ("entities merged by their embedding", tally.merged),
                        ("memories embedded", tally.memories_embedded)):
        table.add_row(what, f"{count:,}")
    if tally.held_back:
        table.add_row("events held back", "by a transaction still open: run `cortex analyze` "
                      "once it ends")
    return table
