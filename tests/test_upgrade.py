"""An upgrade loses nothing: a CORTEX_HOME made by the previous release's code (this
repository's last commit before memory's migration 0027, which rewrites every event's
payload, taken with `git archive` and run as it was) is migrated by `cortex up`: the raw log
identical event for event, the graph's digest equal, the agent's token valid. A migration
that fails leaves the database as it was (no migration applied), and a database migrated by
a newer Cortex is refused in one line, nothing changed.

The old release runs in its own process with the old tree first on sys.path, on a database
of its own (created on the test's server, as DATABASE_URL names one) and a fresh
CORTEX_HOME; the current code then starts on the same two."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from memory.services.preflight import WAL_HEADROOM_BYTES, MigrationRefused, disk_room_check
from memory.services.sql import connection_url

pytestmark = pytest.mark.django_db(transaction=True)

REPO = Path(__file__).resolve().parents[1]
CORTEX = shutil.which("cortex") or str(Path(sys.executable).parent / "cortex")
# The previous release: the commit before the one that added this migration. Move it to a
# later migration when that code no longer runs with today's dependencies.
CHANGE = "memory/migrations/0027_event_payload_lz4.py"
DEADLINE = 300.0
MEMORIES = ["Anya Kowalski decided that the Lisbon launch moves to Friday.",
            "Never use requests in billing-api, use httpx instead.",
            "Marc prefers code reviews in the morning, in Lyon."]
# Payloads the rewrite of 0027 must keep exactly: beyond 64 bits, floats, unicode, nesting.
PAYLOADS = [{"n": 2**70, "ratio": 0.1, "text": "café ☕ naïve", "nested": {"list": [1, None]}},
            {"n": -(2**63), "empty": {}, "quote": "a \"quoted\" \\ word"}]

# Run by a release's own code inside its CORTEX_HOME: the raw log and the graph, as its own
# models read them.
SETUP = """
import os, json
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
import django
django.setup()
"""
READ = SETUP + """
from memory.models import Entity, Fact, Memory, MemoryEvent, Relation
from memory.selectors.graph import graph_digest
cols = ("id", "source", "source_id", "type", "subtype", "occurred_at", "actor", "project",
        "txid")
events = [[str(getattr(e, c)) for c in cols] + [json.dumps(e.payload, sort_keys=True,
                                                           default=str)]
          for e in MemoryEvent.objects.order_by("id")]
counts = {m.__name__: m.objects.count() for m in (Entity, Relation, Fact, Memory)}
read = {"events": events, "digest": graph_digest(), "counts": counts}
"""

# The old release makes its home: its own migrations, then events, memories, the graph they
# make, a sleep cycle, an agent and its token.
BUILD = SETUP + """
import memory
assert memory.__file__.startswith(%(tree)r), memory.__file__
from memory.services.setup import cortex_prepare
from memory.services.agents import agent_create
from memory.services.events import event_append_many
from memory.services.memories import memories_remember
from memory.services.retain import retain_drain
from memory.services.sleep_cycle import sleep_cycle_run
from insight.services.analysis import analysis_drain
cortex_prepare()
_, token = agent_create(name="upgraded-agent", scopes=["events:read", "recall:read"])
memories_remember(source="operator:test", memories=[{"text": t} for t in %(memories)r])
event_append_many(source="api:upgraded-agent", events=[
    {"source_id": f"p{i}", "type": "note", "payload": p} for i, p in enumerate(%(payloads)r)])
analysis_drain()
retain_drain(embed=False)
sleep_cycle_run(trigger="command")
""" + READ.removeprefix(SETUP) + """
print(json.dumps({"token": token, **read}))
"""


def _previous_release(into: Path) -> Path:
    try:
        added = subprocess.run(
            ["git", "-C", str(REPO), "log", "--diff-filter=A", "--format=%H", "-1", "--", CHANGE],
            capture_output=True, text=True, check=True).stdout.strip()
        archive = subprocess.run(["git", "-C", str(REPO), "archive", f"{added}^"],
                                 capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"no git history of this checkout to take the previous release from: {error}")
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4
            tar.extractall(into, filter="data")
        else:
            tar.extractall(into)  # noqa: S202 (this repository's own archive)
    return into


@pytest.fixture
def upgrade_url() -> Iterator[str]:
    """A database of its own on the test's server, empty (the old release migrates it)."""
    name = f"{connection.settings_dict['NAME']}_upgrade"
    admin = connection_url().replace(f"/{quote(connection.settings_dict['NAME'])}", "/postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield connection_url().replace(f"/{quote(connection.settings_dict['NAME'])}",
                                       f"/{quote(name)}")
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _env(home: Path, database_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"XDG_RUNTIME_DIR", "CORTEX_SECRET_KEY", "NATS_URL", "PYTHONPATH"}}
    return {**env, "CORTEX_HOME": str(home), "DATABASE_URL": database_url,
            "REDIS_URL": settings.REDIS_URL}


def _python(tree: Path, env: dict[str, str], code: str) -> Any:
    """`code` run by the release in `tree` (its directory first on sys.path); its JSON line."""
    done = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True,
                          text=True, timeout=DEADLINE)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _current(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CORTEX, *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=DEADLINE)


def _sql(url: str, query: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        cursor = conn.execute(query)
        return cursor.fetchall() if cursor.description else []


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(url: str, token: str) -> int:
    request = urllib.request.Request(url, headers={"Authorization": f"Token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


def _up_until_answered(env: dict[str, str], token: str) -> int:
    """`cortex up` (the current release) on the old home until its API answers the old
    token; the last status it answered."""
    port = _free_port()
    up = subprocess.Popen([CORTEX, "up", "--port", str(port), "--workers", "1"], cwd=REPO,
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          start_new_session=True)
    status = 0
    try:
        deadline = time.monotonic() + DEADLINE
        while up.poll() is None and time.monotonic() < deadline:
            status = _answers(f"http://127.0.0.1:{port}/api/events/?limit=1", token)
            if status:
                break
            time.sleep(0.5)
        assert up.poll() is None, (up.stdout.read() if up.stdout else "")[-3000:]
    finally:
        if up.poll() is None:
            up.send_signal(signal.SIGTERM)
        try:
            up.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(up.pid, signal.SIGKILL)
            up.wait()
    return status


def test_a_home_made_by_the_previous_release_is_migrated_with_nothing_lost(
        tmp_path: Path, upgrade_url: str) -> None:
    old = _previous_release(tmp_path / "previous-release")
    env = _env(tmp_path / "home", upgrade_url)
    before = _python(old, env, BUILD % {"tree": str(old), "memories": MEMORIES,
                                        "payloads": PAYLOADS})
    assert len(before["events"]) == len(MEMORIES) + len(PAYLOADS)
    assert before["counts"]["Entity"] > 0 and before["counts"]["Memory"] == len(MEMORIES)
    applied_before = _sql(upgrade_url, "SELECT app, name FROM django_migrations ORDER BY 1, 2")
    assert ("memory", "0027_event_payload_lz4") not in applied_before

    # A migration that fails (here the last one: its column is already there) leaves the
    # database as it was: the ones before it are not applied either.
    _sql(upgrade_url, "ALTER TABLE memory_memoryembedding ADD COLUMN context_vector int")
    failed = _current(env, "taxonomy", "show")
    assert failed.returncode == 1
    assert failed.stderr.strip().splitlines() == [failed.stderr.strip()]  # one line
    assert "memory.0029_memory_context_vectors failed" in failed.stderr
    assert "no migration applied" in failed.stderr
    assert _sql(upgrade_url, "SELECT app, name FROM django_migrations ORDER BY 1, 2") \
        == applied_before
    assert _sql(upgrade_url, "SELECT data_type FROM information_schema.columns WHERE "
                "table_name = 'memory_memoryevent' AND column_name = 'payload'") == [("jsonb",)]
    _sql(upgrade_url, "ALTER TABLE memory_memoryembedding DROP COLUMN context_vector")

    # `cortex up` of this release migrates it; the old token reads the API.
    assert _up_until_answered(env, before["token"]) == 200
    after = _python(REPO, env, READ + "from memory.selectors.setup import migrations_pending\n"
                    "print(json.dumps({**read, 'pending': migrations_pending()}))")
    assert after["events"] == before["events"]
    assert after["digest"] == before["digest"]
    assert after["counts"] == before["counts"]
    assert [e[-1] for e in after["events"][-2:]] == [json.dumps(p, sort_keys=True)
                                                     for p in PAYLOADS]  # 2**70 exactly
    assert _sql(upgrade_url, "SELECT data_type FROM information_schema.columns WHERE "
                "table_name = 'memory_memoryevent' AND column_name = 'payload'") == [("bytea",)]
    assert after["pending"] == []

    # A database a newer Cortex migrated is refused, whatever the command, and not touched.
    _sql(upgrade_url, "INSERT INTO django_migrations (app, name, applied) "
                      "VALUES ('memory', '9999_from_a_newer_cortex', now())")
    applied = _sql(upgrade_url, "SELECT app, name FROM django_migrations ORDER BY 1, 2")
    newer = _current(env, "remember", "this must not be written")
    assert newer.returncode == 1 and newer.stderr.count("\n") == 1, newer.stderr
    assert "migrated by a newer Cortex (memory 9999_from_a_newer_cortex" in newer.stderr
    assert _sql(upgrade_url, "SELECT app, name FROM django_migrations ORDER BY 1, 2") == applied
    assert _sql(upgrade_url, "SELECT count(*) FROM memory_memoryevent") == [
        (len(before["events"]),)]


def test_a_disk_without_room_for_the_migrations_is_refused_before_they_run() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
                       "JOIN pg_namespace n ON n.oid = c.relnamespace "
                       "WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 2 DESC LIMIT 1")
        table, size = cursor.fetchone() or ("", 0)
    needed = size + WAL_HEADROOM_BYTES
    pending = ["memory 0030_a", "memory 0031_b"]
    with pytest.raises(MigrationRefused) as refused:
        disk_room_check(pending=pending, free_bytes=needed - 1)
    said = refused.value.describe()
    assert said.startswith("not enough free space to migrate (2 migrations to apply: "
                           "memory 0030_a, memory 0031_b)")
    assert f"the largest table, {table}," in said and said.endswith("nothing was changed")
    disk_room_check(pending=pending, free_bytes=needed)  # just enough
    disk_room_check(pending=[], free_bytes=0)  # nothing to migrate: nothing to check
    disk_room_check(pending=pending)  # this disk, as the embedded server's data directory
