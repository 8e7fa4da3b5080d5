"""Each vector strategy's nearest (unit=memory: memories; unit=entity: names and memories)
are read in a thread of their own as soon as the query's encoding is ready, while the
caller's lexical statements run: on that thread's own database connection, so only outside a
transaction (another connection cannot see a transaction's rows). What a recall finds is
what it finds with every statement in turn.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import transaction

from memory.selectors import recall as strategies
from memory.selectors import recall_memories as by_memory
from memory.services import recall as service
from memory.services.embeddings import entity_embed_pending
from memory.services.recall import Unit, recall_run
from tests.recall.notes import notes_remember

pytestmark = pytest.mark.django_db(transaction=True)

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
NOTES = ["Ben flew to Reykjavik twice last winter to see the northern lights.",
         "The pottery class moved to Thursday evenings at the community centre.",
         "Mia's bakery sells sourdough only on weekends.",
         "Ben's sister Ana teaches pottery in Porto.",
         "The Reykjavik trip cost Ben most of his savings."]
QUERY = "Where did Ben travel to see the aurora?"


@pytest.fixture
def notes() -> None:
    notes_remember(NOTES, at=NOW)


def _hits(unit: Unit = "memory") -> list[tuple[str, float]]:
    service._embedded.cache_clear()
    service._sparse_of.cache_clear()
    result = recall_run(query=QUERY, unit=unit, reinforce=False, now=NOW)
    return [(hit.ref, round(hit.score, 9)) for hit in result.hits]


def test_a_memory_recall_scans_each_vector_beside_full_text(
        notes: None, monkeypatch: pytest.MonkeyPatch) -> None:
    scans: list[str] = []
    real = by_memory.memories_nearest

    def spied(**kwargs: Any) -> list[int]:
        scans.append(threading.current_thread().name)
        return real(**kwargs)

    monkeypatch.setattr(by_memory, "memories_nearest", spied)
    beside = _hits()
    assert len(scans) == 2 and all(name.startswith("recall-scan") for name in scans)
    with transaction.atomic():
        in_turn = _hits()
    assert scans[2:] == [threading.current_thread().name] * 2
    assert beside and beside == in_turn
    top = recall_run(query=QUERY, unit="memory", reinforce=False, now=NOW).hits[0]
    assert "Reykjavik" in top.name



def test_an_entity_recall_scans_its_vector_beside_the_lexical_statement(
        notes: None, monkeypatch: pytest.MonkeyPatch) -> None:
    entity_embed_pending()
    scans: list[str] = []
    real = strategies.vector_nearest

    def spied(**kwargs: Any) -> strategies.VectorCandidates:
        scans.append(threading.current_thread().name)
        return real(**kwargs)

    monkeypatch.setattr(strategies, "vector_nearest", spied)
    beside = _hits("entity")
    assert len(scans) == 1 and scans[0].startswith("recall-scan")
    with transaction.atomic():
        in_turn = _hits("entity")
    assert scans[1:] == [threading.current_thread().name]
    assert beside and beside == in_turn
