"""The demo corpus: deterministic, realistic, every behaviour present, and it ingests cleanly."""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from insight.demo.corpus import corpus_write
from memory.models.events import MemoryEvent

from .helpers import ingest


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.jsonl")):
        h.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return h.hexdigest()


def _records(root: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for p in sorted(root.rglob("*.jsonl"))
            for x in p.read_bytes().splitlines()]


def _texts(records: list[dict[str, Any]]) -> list[str]:
    out = []
    for r in records:
        content = (r.get("message") or {}).get("content") if r.get("type") == "user" else None
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out += [b.get("text", "") for b in content if b.get("type") == "text"]
            out += [b["content"] for b in content if b.get("type") == "tool_result"]
    return out


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return corpus_write(tmp_path_factory.mktemp("demo"), seed=7)


def test_the_same_seed_writes_the_same_bytes(demo: Any, tmp_path: Path) -> None:
    again = corpus_write(tmp_path / "again", seed=7, git=False)
    assert _digest(again.projects_root) == _digest(demo.projects_root)
    other = corpus_write(tmp_path / "other", seed=8, git=False)
    assert _digest(other.projects_root) != _digest(demo.projects_root)


def test_sessions_cover_what_the_analyzers_look_for(demo: Any) -> None:
    records = _records(demo.projects_root)
    texts = "\n".join(_texts(records))
    assert demo.sessions >= 10 and demo.subagent_files >= 3
    for phrase in ("Always use uv, never pip.", "N'utilise jamais requests, utilise httpx.",
                   "Je préfère", "I prefer", "No, that's wrong", "[Request interrupted by user]",
                   "[Request interrupted by user for tool use]", "doesn't want to proceed",
                   "ModuleNotFoundError: No module named", "Non, annule ça."):
        assert phrase in texts, phrase
    assert any(r.get("isCompactSummary") for r in records)
    assert any(r.get("subtype") == "compact_boundary" for r in records)
    assert any(r.get("type") == "summary" for r in records)
    assert any(r.get("isApiErrorMessage") for r in records)
    commands = [b["input"].get("command", "") for r in records if r.get("type") == "assistant"
                for b in r["message"]["content"] if b.get("type") == "tool_use"]
    assert any(c.startswith("uv add") for c in commands)
    assert any(c.startswith("pip install") for c in commands)
    files = [p.relative_to(demo.projects_root) for p in demo.projects_root.rglob("*.jsonl")]
    assert any(p.parent.name == "subagents" for p in files)
    assert any(p.name.startswith("agent-") and p.parent.name != "subagents" for p in files)
    assert len({p.parts[0] for p in files}) == 5


def test_the_same_failure_recurs_across_sessions_with_other_paths(demo: Any) -> None:
    sessions: Counter[str] = Counter()
    lines: set[str] = set()
    for path in demo.projects_root.rglob("*.jsonl"):
        data = path.read_text()
        if "No module named" in data:
            sessions[path.parent.name] += 1
            for rec in map(json.loads, data.splitlines()):
                for t in _texts([rec]):
                    if "No module named" in t:
                        lines.add(t.splitlines()[2])  # the File "...", line N row
    assert len(sessions) >= 2 and len(lines) >= 2


def test_the_repository_has_authors_branches_and_merges(demo: Any) -> None:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(demo.repo), *args], check=True,
                              capture_output=True, text=True).stdout

    assert int(git("rev-list", "--all", "--count")) == demo.commits == 120
    assert len(git("log", "--all", "--format=%an").split("\n")) > 5
    assert len(set(git("log", "--all", "--format=%an").split("\n")) - {""}) >= 5
    assert git("log", "--merges", "--oneline").strip()
    assert len(git("branch", "--format=%(refname)").split()) >= 3


def test_a_larger_corpus_comes_from_the_same_generator(tmp_path: Path) -> None:
    info = corpus_write(tmp_path, seed=1, size_bytes=3_000_000, git=False)
    assert info.bytes >= 3_000_000
    assert sum(p.stat().st_size for p in info.projects_root.rglob("*.jsonl")) == info.bytes


@pytest.mark.django_db
def test_the_demo_corpus_ingests_without_a_malformed_line(demo: Any) -> None:
    summary = ingest("claude-code", str(demo.projects_root))
    lines = sum(len(p.read_bytes().splitlines()) for p in demo.projects_root.rglob("*.jsonl"))
    assert summary["lines"] == summary["records"] == summary["events_stored"] == lines
    assert set(summary["malformed"]) <= {"truncated_string"}
    subtypes = set(MemoryEvent.objects.values_list("subtype", flat=True))
    assert {"user.prompt", "user.interrupt", "user.tool_result", "user.meta",
            "assistant.tool_use", "assistant.thinking", "system.compact_boundary",
            "system.api_error", "summary", "file-history-snapshot"} <= subtypes
    assert MemoryEvent.objects.filter(actor__startswith="claude-code:").exists()


@pytest.mark.django_db
def test_demo_corpus_ingest_writes_and_ingests_both_sources(tmp_path: Path) -> None:
    from insight.demo.ingest import demo_corpus_ingest

    result = demo_corpus_ingest(out=tmp_path, seed=7)
    assert result.sessions.events_stored == MemoryEvent.objects.filter(
        source="claude-code").count() > 300
    assert result.git is not None and result.git.records == result.corpus.commits
    assert MemoryEvent.objects.filter(source="git", subtype="commit").count() == 120
