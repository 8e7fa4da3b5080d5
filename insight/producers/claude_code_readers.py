"""A large read of transcripts split across reader processes.

One reader is bound to one core by the GIL: parsing, sanitizing and encoding a line cost ~5x
its orjson parse. When there is much to read, READERS spawned processes each read a share of
the files and prepare whole batches (checked, sanitized, compressed, COPY data built: what
`event_batch_prepare` makes, needing no database), and hand them to the importer, which only
writes them, each with its own files' read positions, in one transaction, in the order they
arrive. A session's files (its transcript and its subagents') are one reader's, read in the
order one reader would read them, so their events and positions keep their order. A reader
that dies takes nothing committed with it: the next run resumes from the committed positions.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from insight.file_state import FileState
from insight.producers.base import IngestSummary, Progress
from insight.producers.claude_code_files import Job
from insight.producers.claude_code_reader import ReadCounters, file_kind
from insight.producers.claude_code_reader_main import WAIT_SECONDS, reader_main
from insight.producers.sink import EventSink

READERS = 2
IN_FLIGHT = 2  # batches waiting per reader: memory stays bounded by the batch
_SPAWN = multiprocessing.get_context("spawn")


def reader_shares(files: list[tuple[Path, Path]], sizes: dict[Path, int],
                  readers: int = READERS) -> list[list[Job]]:
    """The files split into `readers` shares of about as many unread bytes, a session's
    files in one share, each share in the files' order."""
    groups: dict[tuple[Path, str], list[int]] = {}
    for index, (_root, path) in enumerate(files):
        groups.setdefault(_session_key(path), []).append(index)
    weighed = [(sum(sizes[files[i][1]] for i in members), members)
               for members in groups.values()]
    loads = [0] * readers
    shares: list[list[int]] = [[] for _ in range(readers)]
    for size, members in sorted(weighed, key=lambda group: -group[0]):
        lightest = loads.index(min(loads))
        shares[lightest] += members
        loads[lightest] += size
    return [[(str(files[i][0]), str(files[i][1])) for i in sorted(share)]
            for share in shares if share]


def _session_key(path: Path) -> tuple[Path, str]:
    """(the project's folder, the session a path names: its transcript, its subagents)."""
    kind, session = file_kind(path)
    if kind == "subagent":
        return path.parent.parent.parent, session
    return path.parent, session


class ReaderStopped(RuntimeError):
    """A reader process failed or died: what it handed over is written, the rest is read
    again by the next run."""


def readers_run(*, shares: list[list[Job]], states: dict[str, FileState], sink: EventSink,
                summary: IngestSummary, counters: ReadCounters, progress: Progress,
                database_url: str, redis_url: str) -> None:
    """Read every share in a process of its own; write what they prepare through `sink`."""
    out = _SPAWN.Queue(maxsize=IN_FLIGHT * len(shares))
    processes = [
        _SPAWN.Process(target=reader_main, name=f"cortex-reader-{index}", daemon=True,
                       args=(database_url, redis_url, os.getpid(), jobs,
                             {path: states[path] for _root, path in jobs if path in states}, out))
        for index, jobs in enumerate(shares)
    ]
    for process in processes:
        process.start()
    try:
        for message in _messages(out, processes):
            kind, *body = message
            if kind == "batch":
                batches, marks, files, bytes_read = body
                sink.add_prepared(batches, marks)
            else:
                part, read, files, bytes_read = body
                _merge_summary(summary, part)
                _merge_counters(counters, read)
            progress.advance(files=files, bytes_read=bytes_read)
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
            process.join(5)


def _messages(out: Any, processes: list[Any]) -> Iterator[tuple[Any, ...]]:
    done = 0
    while done < len(processes):
        try:
            message = out.get(timeout=WAIT_SECONDS)
        except queue.Empty:
            if any(p.exitcode not in (None, 0) for p in processes):
                raise ReaderStopped("a transcript reader stopped; run the command again "
                                    "to resume") from None
            continue
        if message[0] == "error":
            raise ReaderStopped(f"a transcript reader failed ({message[1]}); run the "
                                "command again to resume")
        done += message[0] == "done"
        yield message


def _merge_summary(summary: IngestSummary, part: IngestSummary) -> None:
    summary.files += part.files
    summary.files_by_kind.update(part.files_by_kind)
    summary.malformed.update(part.malformed)


def _merge_counters(counters: ReadCounters, read: ReadCounters) -> None:
    counters.lines += read.lines
    counters.bytes_read += read.bytes_read
    counters.records += read.records
    counters.malformed.update(read.malformed)
    counters.pending_partial += read.pending_partial
    counters.resets += read.resets
