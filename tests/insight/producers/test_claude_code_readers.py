"""How a large read is split across reader processes (the processes themselves run in
test_first_import.py)."""

from __future__ import annotations

import queue
from pathlib import Path

import pytest

from insight.producers.claude_code_readers import ReaderStopped, _messages, reader_shares

A = "0f3c2a10-0000-4000-8000-00000000000a"
B = "0f3c2a10-0000-4000-8000-00000000000b"
C = "0f3c2a10-0000-4000-8000-00000000000c"


def test_a_session_s_files_stay_in_one_share_in_their_order_and_shares_balance() -> None:
    root = Path("/p")
    sizes = {
        root / "-one" / f"{A}.jsonl": 50,
        root / "-one" / A / "subagents" / "agent-x.jsonl": 40,  # A's subagent
        root / "-one" / f"{B}.jsonl": 60,
        root / "-two" / f"{C}.jsonl": 30,
        root / "-two" / "agent-old.jsonl": 5,  # a 2.0.x agent file: its project's
    }
    files = [(root, path) for path in sizes]
    shares = reader_shares(files, sizes, readers=2)
    by_path = {path: index for index, share in enumerate(shares) for _r, path in share}
    sub = str(root / "-one" / A / "subagents" / "agent-x.jsonl")
    assert by_path[str(root / "-one" / f"{A}.jsonl")] == by_path[sub]
    assert sorted(sum(sizes[Path(p)] for _r, p in share) for share in shares) == [90, 95]
    order = [str(path) for _r, path in files]
    for share in shares:
        assert [p for _r, p in share] == sorted((p for _r, p in share), key=order.index)


class _Queue:
    def __init__(self, *messages: tuple[object, ...]) -> None:
        self.messages = list(messages)

    def get(self, timeout: float) -> tuple[object, ...]:
        if not self.messages:
            raise queue.Empty
        return self.messages.pop(0)


class _Process:
    def __init__(self, exitcode: int | None) -> None:
        self.exitcode = exitcode


def test_a_reader_that_failed_or_died_stops_the_import_with_a_line_to_resume() -> None:
    failed = _messages(_Queue(("batch", 1), ("error", "KeyError")), [_Process(None)])
    assert next(failed) == ("batch", 1)
    with pytest.raises(ReaderStopped, match="KeyError.*again to resume"):
        next(failed)
    with pytest.raises(ReaderStopped, match="again to resume"):
        next(_messages(_Queue(), [_Process(None), _Process(-9)]))
    done = _messages(_Queue(("done", 1), ("done", 2)), [_Process(None), _Process(0)])
    assert list(done) == [("done", 1), ("done", 2)]
