"""The sparse strategy reads its nearest through an HNSW index on each memory's 64 heaviest
latent terms (a stored column, MemoryEmbedding.sparse_head), and scores every candidate on
all its terms."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from django.db import connection

from memory.models import MemoryEmbedding
from memory.models.memories import SPARSE_HEAD_TERMS
from memory.selectors.recall import RecallFilters, Scope
from memory.selectors.recall_memories import SPARSE_HEAD, memories_nearest, memories_scored
from memory.services.recall import query_encoders
from tests.recall.notes import notes_remember

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
TEXTS = ["Ben flew to Reykjavik twice last winter to see the northern lights.",
         "The pottery class moved to Thursday evenings at the community centre.",
         "Mia's bakery sells sourdough only on weekends."]


def _terms(literal: str) -> dict[int, float]:
    body = literal.split("/")[0].strip("{}")
    return {int(i): float(v) for i, v in (t.split(":") for t in body.split(",") if t)}


def _one(sql: str, params: list[str]) -> object:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def test_the_head_keeps_the_heaviest_terms() -> None:
    rng = random.Random(3)
    terms = dict(zip(rng.sample(range(1, 16385), 300),
                     (round(rng.uniform(0.01, 3.0), 4) for _ in range(300)), strict=True))
    literal = "{" + ",".join(f"{i}:{v}" for i, v in sorted(terms.items())) + "}/16384"
    heaviest = dict(sorted(terms.items(), key=lambda t: -t[1])[:64])
    head = _one("SELECT cortex_sparse_head(%s::sparsevec, 64)::text", [literal])
    assert _terms(str(head)) == pytest.approx(heaviest)
    assert _one("SELECT cortex_sparse_head('{}/16384'::sparsevec, 64)::text", []) == "{}/16384"
    assert _one("SELECT cortex_sparse_head(NULL::sparsevec, 64)", []) is None


@pytest.fixture
def embedded() -> None:
    notes_remember(TEXTS, at=NOW)


def test_the_strategy_reads_through_the_index(embedded: None) -> None:
    query = query_encoders()["sparse"]("Who went to Iceland in winter?")
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"""EXPLAIN SELECT v.memory_id FROM memory_memoryembedding v
                           ORDER BY {SPARSE_HEAD} <#> %s::sparsevec LIMIT 5""", [query])
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "memory_embedding_head_hnsw" in plan


def test_the_stored_head_is_the_heaviest_terms_of_the_vector(embedded: None) -> None:
    for row in MemoryEmbedding.objects.all():
        assert row.sparse is not None and row.sparse_head is not None
        terms = _terms(row.sparse.to_text())
        heaviest = dict(sorted(terms.items(), key=lambda t: -t[1])[:SPARSE_HEAD_TERMS])
        assert _terms(row.sparse_head.to_text()) == pytest.approx(heaviest)


def test_every_candidate_is_scored_on_all_its_terms(embedded: None) -> None:
    query = query_encoders()["sparse"]("Who went to Iceland in winter?")
    nearest = memories_nearest(strategy="sparse", literal=query, limit=10, ef_search=100,
                               scope=Scope(filters=RecallFilters(), at=NOW, temporal=False))
    found = memories_scored(ids=nearest, text=None, vector=None, sparse=query)
    asked = _terms(query)
    for memory_id, memory in found.items():
        stored = MemoryEmbedding.objects.get(memory_id=memory_id).sparse
        assert stored is not None
        terms = _terms(stored.to_text())
        assert len(terms) > 64
        expected = sum(value * asked.get(index, 0.0) for index, value in terms.items())
        assert memory.sparse == pytest.approx(expected, rel=1e-5)
    best = max(found.values(), key=lambda m: m.sparse or 0.0)
    assert "Reykjavik" in best.text
