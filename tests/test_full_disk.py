"""A full disk: a write that cannot happen fails with a clear error (the API's 503 with its
message, the `cortex` script's one line), nothing of it is written, and once space is freed
the same write goes through.

The disk is real: a 1 MiB tmpfs, mounted for the test (root only: skipped otherwise), holds
the raw log's table (a PostgreSQL tablespace on it), and a file fills it to its last byte.
PostgreSQL then cannot extend the table's file (ENOSPC, SQLSTATE 53100 disk_full)."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from memory.models import Memory, MemoryEvent
from memory.services.agents import agent_create
from memory.services.sql import connection_url
from memory.services.taxonomy import taxonomy_sync
from tests.mcp.conftest import body, stdio_client

pytestmark = pytest.mark.django_db(transaction=True)

CORTEX = shutil.which("cortex") or str(Path(sys.executable).parent / "cortex")
TABLE = "memory_memoryevent"  # every write of Cortex starts with a raw event
TEXT = "Anya Kowalski moved the Lisbon launch to Friday. " * 40


def _data_directory_owner() -> tuple[int, int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('data_directory')")
        row = cursor.fetchone()
    stat = os.stat(str(row[0])) if row else None
    if stat is None:
        pytest.skip("the database server's data directory is not on this machine")
    return stat.st_uid, stat.st_gid


@pytest.fixture
def full_disk() -> Iterator[Path]:
    """A 1 MiB tmpfs holding the raw log's table; yields the file that fills it."""
    uid, gid = _data_directory_owner()
    parent = Path(tempfile.mkdtemp(prefix="cortex-full-disk-"))
    parent.chmod(0o755)  # the server's own user goes through it
    disk = parent / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o",
                              f"size=1m,mode=0700,uid={uid},gid={gid}", "tmpfs", str(disk)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        shutil.rmtree(parent)
        pytest.skip(f"cannot mount a tmpfs here (root only): {mounted.stderr.strip()}")
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"CREATE TABLESPACE full_disk LOCATION '{disk}'")
            # Earlier tests' rolled-back rows left pages with room for a small row, which
            # SET TABLESPACE copies as they are: a write would fit without the disk.
            cursor.execute(f"VACUUM FULL {TABLE}")
            cursor.execute(f"ALTER TABLE {TABLE} SET TABLESPACE full_disk")
        filler = disk / "filler"
        _fill(filler)
        yield filler
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"ALTER TABLE {TABLE} SET TABLESPACE pg_default")
            cursor.execute("DROP TABLESPACE IF EXISTS full_disk")
        subprocess.run(["umount", str(disk)], check=True)
        shutil.rmtree(parent)


def _fill(path: Path) -> None:
    """Write until the disk has not one byte left."""
    with path.open("wb", buffering=0) as out:  # unbuffered: nothing left to write at close
        try:
            while True:
                out.write(b"\0" * 4096)
        except OSError as error:
            assert error.errno == errno.ENOSPC, error
    assert shutil.disk_usage(str(path.parent)).free == 0


def _post(client: Client, token: str, text: str) -> tuple[int, dict[str, object], str]:
    response = client.post("/api/memories/", {"memories": [{"text": text}]},
                           content_type="application/json",
                           headers={"authorization": f"Token {token}"})
    return response.status_code, response.json(), response.headers.get("Retry-After", "")


def _remember(text: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": connection_url(), "REDIS_URL": settings.REDIS_URL}
    return subprocess.run([CORTEX, "remember", text], env=env, capture_output=True, text=True,
                          timeout=300)


def _mcp_remember(token: str, text: str) -> dict[str, object]:
    """The MCP server (`cortex mcp`, over stdio) asked to remember `text`."""
    async def main() -> dict[str, object]:
        async with stdio_client(token) as client:
            answer: dict[str, object] = body(await client.call_tool("remember", {"text": text}))
            return answer

    return anyio.run(main)


def test_a_write_on_a_full_disk_fails_clearly_leaves_nothing_and_goes_through_after(
        full_disk: Path) -> None:
    taxonomy_sync()
    _, token = agent_create(name="full-disk-agent", scopes=["memories:write"])
    client = Client()

    status, body, retry = _post(client, token, TEXT)
    assert status == 503, body
    assert body["error"] == {
        "code": "disk_full", "fields": {},
        "message": "The database's disk is full: nothing was written. Free some space on it, "
                   "then send this again (cortex doctor shows the database's size by table)."}
    assert retry == "60"
    refused = _remember("Marc prefers code reviews in the morning.")
    assert refused.returncode == 1
    assert refused.stderr.count("\n") == 1, refused.stderr  # one line, no traceback
    assert refused.stderr.startswith("cortex: the database's disk is full (could not extend")
    assert "No space left on device" in refused.stderr
    assert refused.stderr.rstrip().endswith("the write was rolled back, nothing half-written; "
                                            "free some space on it and run this again")
    over_mcp = _mcp_remember(token, "Lyon is where Marc lives.")
    assert over_mcp["error"] == body["error"], over_mcp  # the same error, over MCP
    assert MemoryEvent.objects.count() == 0 and Memory.objects.count() == 0

    full_disk.unlink()  # space again
    status, body, _ = _post(client, token, TEXT)
    assert status == 201, body
    remembered = _remember("Marc prefers code reviews in the morning.")
    assert remembered.returncode == 0, remembered.stderr
    texts = sorted(str(e.payload.get("text", "")).strip() for e in MemoryEvent.objects.all())
    assert texts == sorted([TEXT.strip(), "Marc prefers code reviews in the morning."])
