"""Replay: the demo corpus ingested incrementally (the git history, then the sessions a few
files at a time, each step analyzed in small batches and retained right away, with the
offline dedup pass in between) and the same corpus rebuilt from the raw log alone give the
same graph, compared by its canonical digest."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from insight.demo.corpus import corpus_write
from insight.producers.base import NoProgress
from insight.producers.claude_code import ClaudeCodeProducer
from insight.producers.git import GitProducer
from insight.services.analysis import analysis_batch_run, analyzed_sources
from memory.models import Entity, EntityMerge, Observation
from memory.selectors.graph import graph_digest, graph_summary
from memory.services.rebuild import graph_rebuild
from tests.retain.conftest import retain

pytestmark = pytest.mark.usefixtures("synced")


def _analyze_and_retain_in_steps(batch_size: int = 40) -> None:
    for source in analyzed_sources():
        while True:
            report = analysis_batch_run(source=source, batch_size=batch_size)
            retain(embed=True)
            if not report.more:
                break


def _copy(files: list[Path], root: Path, staging: Path) -> None:
    for path in files:
        target = staging / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)


def test_the_incremental_graph_and_the_replayed_one_are_the_same(tmp_path: Path) -> None:
    corpus = corpus_write(tmp_path / "demo", seed=7)
    assert corpus.repo is not None
    GitProducer(repo=corpus.repo).run(progress=NoProgress())
    _analyze_and_retain_in_steps()
    root, staging = corpus.projects_root, tmp_path / "staging"
    files = sorted(root.rglob("*.jsonl"))
    for start in range(0, len(files), 4):
        _copy(files[start:start + 4], root, staging)
        ClaudeCodeProducer(roots=[staging]).run(progress=NoProgress())
        _analyze_and_retain_in_steps()
    # Every category the analyzers emit has its handler: nothing pending, unhandled or failed.
    assert set(Observation.objects.values_list("status", flat=True)) <= {"retained",
                                                                         "quarantined"}
    incremental = graph_digest()
    entities = Entity.objects.count()
    merges = EntityMerge.objects.count()

    report = graph_rebuild()

    assert report.digest == incremental
    assert Entity.objects.count() == entities > 50
    assert EntityMerge.objects.count() == merges
    routes = graph_summary().routes
    assert routes["normal"] + routes["fast_lane"] > 10 * routes["dark_matter"]
