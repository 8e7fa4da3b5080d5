"""`cortex ingest claude-code`: fixtures, incremental runs, torn lines, rewrites, malformed."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from insight.models import SourceFile
from memory.models.events import MemoryEvent

from .helpers import SESSION, append, ingest, line, record, write

pytestmark = pytest.mark.django_db


def _stored(**filters: object) -> int:
    return MemoryEvent.objects.filter(source="claude-code", **filters).count()


def _count_file(path: Path) -> tuple[int, int, Counter[str], set[str]]:
    """Independently of the producer: lines, JSON objects, malformed kinds, uuids."""
    data = path.read_bytes()
    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    objects, malformed, uuids = 0, Counter[str](), set()
    for piece in pieces:
        if not piece.strip():
            malformed["empty_line"] += 1
            continue
        try:
            value = json.loads(piece)
        except ValueError:
            malformed["unparseable"] += 1
            continue
        if not isinstance(value, dict):
            malformed["non_object"] += 1
            continue
        objects += 1
        if isinstance(value.get("uuid"), str) and value["uuid"]:
            uuids.add(value["uuid"])
    return len(pieces), objects, malformed, uuids


def test_every_fixture_ingests_and_the_counts_match_the_files(shared_fixtures: Path) -> None:
    root = shared_fixtures / "claude-code"
    files = sorted(root.rglob("*.jsonl"))
    lines = objects = 0
    malformed: Counter[str] = Counter()
    uuids: set[str] = set()
    for path in files:
        n_lines, n_objects, bad, ids = _count_file(path)
        lines, objects = lines + n_lines, objects + n_objects
        malformed.update(bad)
        uuids |= ids
    malformed["empty_file"] = sum(1 for p in files if p.stat().st_size == 0)

    summary = ingest("claude-code", str(root))

    assert summary["files"] == len(files)
    assert summary["lines"] == lines
    assert summary["records"] == objects
    assert summary["events_stored"] + summary["duplicates"] == objects
    assert summary["malformed"] == {k: v for k, v in malformed.items() if v}
    assert summary["events_stored"] == _stored()
    stored_ids = set(MemoryEvent.objects.filter(source="claude-code")
                     .values_list("source_id", flat=True))
    assert uuids <= stored_ids
    assert summary["files_by_kind"]["subagent"] == 3
    assert summary["files_by_kind"]["agent"] == sum(
        1 for p in files if p.name.startswith("agent-") and p.parent.name != "subagents")


def test_a_second_run_stores_nothing_new(shared_fixtures: Path) -> None:
    root = shared_fixtures / "claude-code"
    first = ingest("claude-code", str(root))
    second = ingest("claude-code", str(root))
    assert first["events_stored"] > 1000
    assert second["events_stored"] == second["duplicates"] == second["lines"] == 0
    assert _stored() == first["events_stored"]


def test_subagent_files_keep_their_link_to_the_parent_session(shared_fixtures: Path) -> None:
    ingest("claude-code", str(shared_fixtures / "claude-code"))
    parent = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    sub = next(e for e in MemoryEvent.objects.filter(
        source="claude-code", subtype__startswith="assistant.").order_by("pk")
        if e.payload["_cortex"]["file"].endswith(
            f"{parent}/subagents/agent-a36efb2a1231c41e2.jsonl"))
    assert sub is not None
    assert sub.payload["_cortex"]["parent_session"] == parent
    assert sub.correlation_session == parent
    assert sub.correlation_thread == "a36efb2a1231c41e2"
    assert sub.actor == "claude-code:a36efb2a1231c41e2"
    # The project comes from cwd (first record that has one), not from the directory name.
    assert sub.project == "worktrees"
    assert _stored(project="JSSoundRecorder") > 0


def test_appended_lines_and_only_those_are_stored(tmp_path: Path) -> None:
    path = write(tmp_path / "-enc" / f"{SESSION}.jsonl", record("u1"), record("u2"))
    assert ingest("claude-code", str(tmp_path))["events_stored"] == 2
    append(path, line(record("u3")) + line(record("u4", kind="assistant")))
    summary = ingest("claude-code", str(tmp_path))
    assert (summary["lines"], summary["events_stored"], summary["duplicates"]) == (2, 2, 0)
    assert sorted(MemoryEvent.objects.values_list("source_id", flat=True)) == [
        "u1", "u2", "u3", "u4"]


def test_a_torn_last_line_waits_and_is_stored_once_complete(tmp_path: Path) -> None:
    path = write(tmp_path / "-enc" / f"{SESSION}.jsonl", record("u1"))
    whole = line(record("u2"))
    append(path, whole[:25])
    summary = ingest("claude-code", str(tmp_path))
    assert summary["events_stored"] == 1 and summary["pending_partial_lines"] == 1
    assert SourceFile.objects.get().offset == len(line(record("u1")))
    append(path, whole[25:])
    summary = ingest("claude-code", str(tmp_path))
    assert (summary["events_stored"], summary["pending_partial_lines"]) == (1, 0)
    assert _stored(source_id="u2") == 1
    assert ingest("claude-code", str(tmp_path))["lines"] == 0


def test_a_complete_last_line_without_newline_is_read_and_not_counted_twice(
    tmp_path: Path,
) -> None:
    path = tmp_path / "-enc" / f"{SESSION}.jsonl"
    path.parent.mkdir()
    path.write_bytes(line(record("u1")) + json.dumps(record("u2")).encode())
    assert ingest("claude-code", str(tmp_path))["events_stored"] == 2
    append(path, b"\n" + line(record("u3")))
    summary = ingest("claude-code", str(tmp_path))
    assert (summary["lines"], summary["events_stored"], summary["malformed"]) == (1, 1, {})


def test_each_malformed_kind_is_counted_and_never_fatal(tmp_path: Path) -> None:
    path = tmp_path / "-enc" / f"{SESSION}.jsonl"
    path.parent.mkdir()
    big = record("big", text="B" * 1_500_000)
    path.write_bytes(b"".join([
        line(record("u1")),
        b"\n",  # empty line
        b"42\n",  # JSON, not an object
        json.dumps(record("g1")).encode() + json.dumps(record("g2")).encode() + b"\n",  # glued
        b'{"type":"user","uuid":"u9", "message": {\n',  # unparseable
        json.dumps(record("u5", text="caf")).encode()[:-3] + b'\xe9"}}\n',  # invalid UTF-8
        line(big),  # 1.5 MB
    ]))
    (tmp_path / "-enc" / "00000000-0000-4000-8000-000000000000.jsonl").write_bytes(b"")
    summary = ingest("claude-code", str(tmp_path))
    assert summary["malformed"] == {
        "empty_line": 1, "non_object": 1, "glued": 1, "unparseable": 1, "invalid_utf8": 1,
        "long_line": 1, "truncated_string": 1, "empty_file": 1,
    }
    assert summary["lines"] == 7 and summary["files"] == 2
    assert sorted(MemoryEvent.objects.values_list("source_id", flat=True)) == [
        "big", "g1", "g2", "u1", "u5"]
    cut = MemoryEvent.objects.get(source_id="big").payload["message"]["content"]
    assert cut["_truncated"] is True and cut["size"] == 1_500_000
    assert MemoryEvent.objects.get(source_id="u5").payload["message"]["content"] == "caf\ufffd"


def test_a_rewritten_file_is_read_again_without_duplicates(tmp_path: Path) -> None:
    path = write(tmp_path / "-enc" / f"{SESSION}.jsonl", record("u1"), record("u2"),
                 record("u3"))
    ingest("claude-code", str(tmp_path))
    # Rewritten in place with other content: the head changed, the offset is meaningless.
    write(path, record("u1"), record("v2"), record("v3"), record("v4"))
    summary = ingest("claude-code", str(tmp_path))
    assert summary["files_reset"] == 1
    assert (summary["events_stored"], summary["duplicates"]) == (3, 1)


def test_a_truncated_or_replaced_file_is_read_again(tmp_path: Path) -> None:
    path = write(tmp_path / "-enc" / f"{SESSION}.jsonl", record("u1"), record("u2"))
    ingest("claude-code", str(tmp_path))
    write(path, record("u1"))  # shorter than the offset
    summary = ingest("claude-code", str(tmp_path))
    assert (summary["files_reset"], summary["events_stored"], summary["duplicates"]) == (1, 0, 1)
    replacement = path.with_suffix(".new")
    write(replacement, record("u1"), record("w2"))
    os.replace(replacement, path)  # a new inode under the same name
    summary = ingest("claude-code", str(tmp_path))
    assert (summary["files_reset"], summary["events_stored"], summary["duplicates"]) == (1, 1, 1)


def test_the_default_root_follows_claude_config_dir(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "conf"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    write(tmp_path / "conf" / "projects" / "-enc" / f"{SESSION}.jsonl", record("u1"))
    assert ingest("claude-code")["events_stored"] == 1


def test_unknown_record_types_pass_through_as_their_own_subtype(tmp_path: Path) -> None:
    write(tmp_path / "-enc" / f"{SESSION}.jsonl", record("n1", kind="hologram"),
          {"type": "ai-title", "title": "Shop API", "sessionId": SESSION})
    ingest("claude-code", str(tmp_path))
    assert sorted(MemoryEvent.objects.values_list("subtype", flat=True)) == [
        "ai-title", "hologram"]
    title = MemoryEvent.objects.get(subtype="ai-title")
    assert title.source_id.startswith(f"{SESSION}:ai-title:")
    assert title.project == "shop-api"  # from the cwd of another record of the file


def test_an_unchanged_file_is_not_opened_and_a_touched_one_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from insight.producers.claude_code_reader import transcript_events as read

    opened: list[str] = []

    def spy(path: Path, **kwargs: Any) -> Any:
        opened.append(path.name)
        return read(path, **kwargs)

    monkeypatch.setattr("insight.producers.claude_code_files.transcript_events", spy)
    first = write(tmp_path / "-enc" / f"{SESSION}.jsonl", record("u1"), record("u2"))
    second = write(tmp_path / "-enc" / "agent-a1.jsonl", record("a1"))
    ingest("claude-code", str(tmp_path))
    assert sorted(opened) == sorted([first.name, second.name])
    assert {row.path: row.mtime_ns for row in SourceFile.objects.all()} == {
        str(p.resolve()): p.stat().st_mtime_ns for p in (first, second)}

    opened.clear()
    summary = ingest("claude-code", str(tmp_path))
    assert (opened, summary["files"], summary["events_stored"]) == ([], 2, 0)

    stat = second.stat()
    os.utime(second, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # touched only
    append(first, line(record("u3")))
    summary = ingest("claude-code", str(tmp_path))
    assert sorted(opened) == sorted([first.name, second.name])
    assert (summary["events_stored"], summary["duplicates"], summary["files_reset"]) == (1, 0, 0)
