"""A memory's vectors stay in its row (migration 0035): recall scores every candidate by
them, and a vector moved to the TOAST table is read back chunk by chunk."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection

from memory.models import MemoryEmbedding
from memory.services.memories import memories_remember
from memory.services.memories_embed import memory_embed_pending
from tests.memories.conftest import T0, consolidate

pytestmark = pytest.mark.usefixtures("synced")

# PostgreSQL moves values out of a row longer than this (TOAST_TUPLE_THRESHOLD, 8 KB pages).
TOAST_THRESHOLD = 2032


def _reply_embedded() -> MemoryEmbedding:
    memories_remember(source="api:lyra", memories=[
        {"text": text, "source_id": source_id, "occurred_at": when.isoformat(),
         "project": "chat"} for source_id, text, when in (
            ("q", "Ana: Have you ever been to Iceland, or anywhere up north?", T0),
            ("a", "Ben: Yes, twice! We drove around the whole island in a rented van.",
             T0 + timedelta(minutes=2)))])
    consolidate()
    memory_embed_pending()
    reply = MemoryEmbedding.objects.get(memory__source_id="a")
    assert reply.context_vector is not None and reply.context_sparse is not None
    return reply


def _toast_rows() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltoastrelid::regclass::text FROM pg_class "
                       "WHERE oid = 'memory_memoryembedding'::regclass")
        toast = cursor.fetchone()[0]
        cursor.execute(f"SELECT count(*) FROM {toast}")  # noqa: S608 (a catalog name)
        return int(cursor.fetchone()[0])


def _row_bytes(memory_id: int) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_column_size(e.*) FROM memory_memoryembedding e "
                       "WHERE memory_id = %s", [memory_id])
        return int(cursor.fetchone()[0])


def _vectors(memory_id: int) -> tuple[str, ...]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT vector::text, sparse::text, context_vector::text, "
                       "context_sparse::text, sparse_head::text FROM memory_memoryembedding "
                       "WHERE memory_id = %s", [memory_id])
        return tuple(cursor.fetchone())


def test_a_reply_s_four_vectors_stay_in_its_row() -> None:
    reply = _reply_embedded()
    assert _row_bytes(reply.memory_id) > TOAST_THRESHOLD  # what would have gone out of line
    assert _toast_rows() == 0


def test_the_migration_moves_the_rows_written_before_it_into_their_row() -> None:
    call_command("migrate", "memory", "0034", verbosity=0)  # the table as it was before
    before = _reply_embedded()
    vectors = _vectors(before.memory_id)
    assert _toast_rows() > 0
    with connection.cursor() as cursor:  # ALTER TABLE refuses a table with pending checks
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    call_command("migrate", "memory", verbosity=0)
    assert _toast_rows() == 0
    assert _vectors(before.memory_id) == vectors  # nothing lost in the rewrite
