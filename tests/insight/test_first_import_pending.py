"""When `cortex ingest claude-code` returns, nothing is left pending (issue 27): the vectors of
the entities it created were computed while it ran, so `cortex analyze` and `cortex retain`
(its Retain Job and its offline passes: embedding, embedding dedup, memories) find nothing
to do. Runs the command as a subprocess on the test database (committed rows)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from insight.demo.corpus import corpus_write
from insight.services.first_import import first_import_waiting
from memory.models import Entity, EntityEmbedding, Observation
from memory.services.embeddings import PassReport, embedding_passes_run, embedding_waiting
from memory.services.retain import retain_drain
from memory.services.sql import connection_url

pytestmark = pytest.mark.django_db(transaction=True)

CORTEX = shutil.which("cortex") or str(Path(sys.executable).parent / "cortex")


def _command(name: str, *args: str) -> dict[str, object]:
    out = io.StringIO()
    call_command(name, *args, "--json", stdout=out)
    found: dict[str, object] = json.loads(out.getvalue().strip().splitlines()[-1])
    return found


def test_after_the_first_import_analyze_and_retain_find_nothing(tmp_path: Path) -> None:
    root = corpus_write(tmp_path / "corpus", seed=5, size_bytes=2_000_000,
                        git=False).projects_root
    env = {**os.environ, "DATABASE_URL": connection_url(), "REDIS_URL": settings.REDIS_URL,
           "CORTEX_LOG_LEVEL": "WARNING"}
    done = subprocess.run([CORTEX, "ingest", "claude-code", str(root), "--json"], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    stages = json.loads(done.stdout.strip().splitlines()[-1])["stages"]
    entities = Entity.objects.count()
    assert stages["entities_created"] == entities > 20
    assert stages["embedded"] >= entities  # every name, while it ran
    # every name read; a file path's holds no vector (full-text finds it by its words)
    files = Entity.objects.filter(namespace__path="world:artifact", display_name__contains="/")
    assert files.exists()
    assert EntityEmbedding.objects.filter(vector__isnull=False).count() == (
        entities - files.count())
    assert not embedding_waiting() and not first_import_waiting()

    analyzed = _command("analyze")
    assert sum(analyzed["events"].values()) == 0  # type: ignore[attr-defined]
    # What `cortex retain` runs: the Retain Job, then the offline passes.
    retained = retain_drain(embed=False)
    assert (retained.processed, retained.gave_up) == (0, 0)
    assert embedding_passes_run() == PassReport()
    assert Entity.objects.count() == entities and Observation.objects.filter(
        status="pending").count() == 0
