"""`cortex ingest claude-code` runs analysis and retain as the raw log fills: when it returns
nothing is pending, and a SIGKILL at any point then a re-run gives the log of one clean run
and the graph a replay of that log gives (event ids and commit order differ from one import
to another, so two imports' graphs are compared through the replay: graph_rebuild). Runs
the command as subprocesses on the test database (committed rows: transactional tests)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pgtrigger
import psutil
import psycopg
import pytest
from django.conf import settings
from django.core.management import call_command

from insight.demo.corpus import corpus_write
from insight.services.first_import import first_import_waiting
from memory.models import Observation, ObservationStatus
from memory.models.events import MemoryEvent
from memory.models.memories import Memory
from memory.models.observations import RetainAttempt
from memory.selectors.graph import graph_digest
from memory.services.embeddings import embedding_passes_run
from memory.services.memories import memories_remember
from memory.services.rebuild import graph_rebuild
from memory.services.sql import connection_url

from .helpers import SESSION, append, line, record, write

pytestmark = pytest.mark.django_db(transaction=True)

CORTEX = shutil.which("cortex") or str(Path(sys.executable).parent / "cortex")
SECRET = "AKIA" + "QYLPMN5HHHFPZAM2"  # an AWS access key id, built so no scanner trips here


def _corpus(tmp_path: Path) -> Path:
    # Several batches of events: the stages run in their follower processes.
    root = corpus_write(tmp_path / "corpus", seed=21, size_bytes=4_000_000,
                        git=False).projects_root
    odd = root / "-home-op-code-odd" / f"{SESSION}.jsonl"
    write(odd, record("s1", text=f"deploy with aws key {SECRET} please"))
    append(odd, b"{not json\n" + line(record("s2", kind="assistant"))[:30])  # torn at the end
    return root


def _env() -> dict[str, str]:
    # (--raw-only reads in reader processes however little there is to read)
    return {**os.environ, "DATABASE_URL": connection_url(), "REDIS_URL": settings.REDIS_URL,
            "CORTEX_LOG_LEVEL": "WARNING", "CORTEX_INGEST_READERS_FROM_BYTES": "0"}


def _command(root: Path, *, raw_only: bool) -> list[str]:
    return [CORTEX, "ingest", "claude-code", str(root), "--json",
            *(["--raw-only"] if raw_only else [])]


def _ingest(root: Path, *, raw_only: bool = False) -> dict[str, object]:
    done = subprocess.run(_command(root, raw_only=raw_only), env=_env(), capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _killed_midway(root: Path, *, once: str, raw_only: bool) -> None:
    """Started, then SIGKILLed once `once` (events, observations) has begun to fill; its
    follower (or, --raw-only, its reader processes) stop on their own (the importer is
    gone)."""
    process = subprocess.Popen(_command(root, raw_only=raw_only), env=_env(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    model = MemoryEvent if once == "events" else Observation
    deadline = time.monotonic() + 300
    while not model.objects.exists():
        assert process.poll() is None and time.monotonic() < deadline, "finished before a kill"
        time.sleep(0.05)
    children = psutil.Process(process.pid).children(recursive=True)
    if once == "observations":  # the stages' process (forked by the importer) and its child
        stages = [c for c in children if "resource_tracker" not in " ".join(c.cmdline())]
        assert len(stages) >= 2, "the stages did not run beside the raw ingestion"
    process.send_signal(signal.SIGKILL)
    process.wait()
    _, alive = psutil.wait_procs(children, timeout=60)
    assert not alive, "the follower outlived the importer"


def _log_digest() -> str:
    digest = hashlib.sha256()
    rows = MemoryEvent.objects.order_by("source", "source_id").values_list(
        "source", "source_id", "type", "subtype", "occurred_at", "project", "correlation_session",
        "correlation_thread", "correlation_parent",
        "payload")
    for row in rows:
        digest.update(orjson.dumps(row, default=str) + b"\n")
    return digest.hexdigest()


def _wipe() -> None:
    with pgtrigger.ignore("memory.MemoryEvent:no_truncate"):
        call_command("flush", interactive=False, verbosity=0)


@pytest.mark.parametrize(("once", "raw_only"), [("events", False), ("observations", False),
                                                ("events", True)])
def test_a_sigkill_then_a_rerun_gives_one_clean_run(tmp_path: Path, once: str,
                                                    raw_only: bool) -> None:
    """One clean run; then, from nothing again, a run killed midway and a re-run (or, with
    the raw log read by reader processes, a --raw-only run killed and re-run, then a run
    that finds nothing new to read and does the stages): the same log, and the graph its
    replay gives."""
    root = _corpus(tmp_path)
    summary = _ingest(root)
    stages = summary["stages"]
    assert isinstance(stages, dict)
    assert not Observation.objects.filter(status=ObservationStatus.PENDING).exists()
    assert stages["retained"] == Observation.objects.count() > 0
    assert summary["pending_partial_lines"] == 1
    assert summary["malformed"] == {"unparseable": 1}
    clean = (_log_digest(), MemoryEvent.objects.count())

    _wipe()
    _killed_midway(root, once=once, raw_only=raw_only)
    if raw_only:
        _ingest(root, raw_only=True)
    _ingest(root)
    assert not Observation.objects.filter(status=ObservationStatus.PENDING).exists()
    assert (_log_digest(), MemoryEvent.objects.count()) == clean
    embedding_passes_run()  # the offline pass the workers run; the replay runs it too
    assert graph_digest() == graph_rebuild().digest
    assert not any(SECRET in orjson.dumps(payload).decode()
                   for payload in MemoryEvent.objects.values_list("payload", flat=True))
    stored = MemoryEvent.objects.get(source_id="s1").payload["message"]["content"]
    assert SECRET not in stored and "[REDACTED:aws-access-key]" in stored
    assert not MemoryEvent.objects.filter(source_id="s2").exists()  # the torn line waits


def test_reader_processes_store_what_the_importer_stores(tmp_path: Path) -> None:
    root = _corpus(tmp_path)
    alone = _ingest(root)  # read by the importer itself, beside the stages
    log = (_log_digest(), MemoryEvent.objects.count())
    _wipe()
    read = _ingest(root, raw_only=True)
    assert (_log_digest(), MemoryEvent.objects.count()) == log
    counted = ("files", "files_by_kind", "lines", "bytes", "records", "events_stored",
               "malformed", "pending_partial_lines")
    assert {k: read[k] for k in counted} == {k: alone[k] for k in counted}
    assert _ingest(root, raw_only=True)["events_stored"] == 0  # an unchanged re-run


def test_raw_only_leaves_the_stages_to_the_workers(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    write(root / "-enc" / f"{SESSION}.jsonl", record("u1", text="please always run the tests"))
    done = subprocess.run([CORTEX, "ingest", "claude-code", str(root), "--json", "--raw-only"],
                          env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "stages" not in json.loads(done.stdout.strip().splitlines()[-1])
    assert MemoryEvent.objects.count() == 1 and not Observation.objects.exists()



def test_an_unchanged_rerun_finishes_what_a_run_before_left(tmp_path: Path) -> None:
    """Nothing new to read: the stages are asked once whether anything waits (an event no
    analyzer read, a pending observation, a retain attempt left behind), and run if so."""
    root = tmp_path / "projects"
    write(root / "-enc" / f"{SESSION}.jsonl", record("u1", text="please always run the tests"))
    done = subprocess.run([CORTEX, "ingest", "claude-code", str(root), "--json", "--raw-only"],
                          env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert first_import_waiting()  # an event no analyzer has read
    stages = _ingest(root)["stages"]
    assert isinstance(stages, dict) and stages["events_analyzed"] == 1
    assert stages["retained"] == Observation.objects.count() > 0
    assert not first_import_waiting()
    observation = Observation.objects.first()
    assert observation is not None
    RetainAttempt.objects.create(observation_ids=[observation.pk])  # a worker died trying it
    assert first_import_waiting()
    RetainAttempt.objects.all().delete()
    Observation.objects.filter(pk=observation.pk).update(status=ObservationStatus.PENDING)
    assert first_import_waiting()
    assert _ingest(root)["stages"] == {**stages, "events_analyzed": 0, "observations": 0,
                                       "observations_created": 0, "retained": 1,
                                       "entities_created": 0, "embedded": 0, "merged": 0,
                                       "memories_embedded": 0}
    assert not first_import_waiting()


def test_the_stages_wait_for_a_transaction_that_holds_the_raw_log_back(tmp_path: Path) -> None:
    """A transaction open elsewhere (a worker's, a session's) since before the import: the
    raw log's events are committed but no reader may pass it. The stages wait for it to end
    rather than stop with every event unanalyzed."""
    root = tmp_path / "projects"
    write(root / "-enc" / f"{SESSION}.jsonl", record("u1", text="please always run the tests"),
          record("u2", text="never use flake8"))
    with psycopg.connect(connection_url()) as other:
        other.execute("SELECT pg_current_xact_id()")  # an id older than the import's
        process = subprocess.Popen(_command(root, raw_only=False), env=_env(),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while MemoryEvent.objects.count() < 2 and process.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(1.5)  # the raw log is complete: the stages would have stopped by now
        assert process.poll() is None, "the import returned with its events held back"
        assert not Observation.objects.exists()
        other.rollback()
        out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err[-3000:]
    stages = json.loads(out.strip().splitlines()[-1])["stages"]
    assert (stages["events_analyzed"], stages["held_back"]) == (2, 0)
    assert stages["retained"] == Observation.objects.count() > 0
    assert not first_import_waiting()


def test_another_sources_events_are_analyzed_once_the_raw_log_is_complete(
        tmp_path: Path) -> None:
    """While the raw log fills, the analysis reads the raw log's source alone; an event of
    another source (an agent's memory, posted before or during the import) is read once the
    raw log is complete: the import leaves nothing waiting."""
    memories_remember(source="api:lyra", memories=[
        {"text": "The billing service listens on port 8042.", "actor": "Mira"}])
    stages = _ingest(_corpus(tmp_path))["stages"]
    assert isinstance(stages, dict)
    assert stages["events_analyzed"] == MemoryEvent.objects.count()
    assert stages["memories_embedded"] == Memory.objects.filter(embedded=True).count() == 1
    assert not first_import_waiting()
