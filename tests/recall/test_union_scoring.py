"""The vector strategy scores every candidate of the union, not only its own nearest
neighbours: a memory that full-text found among many of the same person's notes, but that
nearer notes push out of the vector's own list, is still told apart by its meaning. And a
fact drawn from a memory is not a second hit beside it."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from insight.services.analysis import analysis_drain
from memory.config import DecayConfig, config_get
from memory.models import Memory
from memory.retain.embedders import embedder_get
from memory.selectors import recall as strategies
from memory.selectors.recall import RecallFilters, Scope
from memory.services.memories import memories_remember
from memory.services.recall import recall_run
from memory.services.retain import retain_drain
from tests.recall.notes import notes_remember

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
QUESTION = "Comment s'appelle le chat d'Anya Petrova ?"
TARGET = ("Anya Petrova adopted a shelter kitten last winter after the move; "
          "she named the cat Mochi.")
# Notes of the same kind about other people, in the question's language: nearer to it than
# the English target.
# Nearer to the question than anything else: the vector's own list (one candidate here).
DECOY = "Comment s'appelle le chien d'Anya Petrova ?"
SAME_PERSON = ["Anya Petrova bought a new green bicycle in Lyon.",
               "Anya Petrova forgot the charger at the Acme office again.",
               "Anya Petrova asked for the slides of the Globex workshop.",
               "Anya Petrova is reading a novel set in Oslo."]
NOVEL = SAME_PERSON[-1]


def _narrow(config: DecayConfig, candidates: int) -> DecayConfig:
    assert config.recall is not None
    return dataclasses.replace(config, recall=dataclasses.replace(config.recall,
                                                                  candidates=candidates))


@pytest.fixture
def notes() -> None:
    notes_remember([TARGET, DECOY, *SAME_PERSON], at=NOW)


def test_a_fulltext_candidate_beyond_the_nearest_neighbours_is_scored_by_meaning(
        notes: None) -> None:
    config = _narrow(config_get(), candidates=2)
    vector = embedder_get(config.retain.embedder).embed_query([QUESTION])[0]
    nearest = strategies.vector_memories(
        vector=vector, limit=2, ef_search=200,
        scope=Scope(filters=RecallFilters(), at=NOW, temporal=False))
    # the situation under test: the vector's own list is the decoy and one other
    assert nearest[0].ref == Memory.objects.get(text=DECOY).pk
    result = recall_run(query=QUESTION, unit="memory", limit=10, reinforce=False, now=NOW,
                        strategies_on=("fulltext", "vector"), config=config)
    # full-text brought memories the vector's own list does not hold; each has its vector
    # share, and the one about the cat outranks the same person's other note by it
    beyond = [hit for hit in result.hits if int(hit.ref) not in {c.ref for c in nearest}]
    assert beyond
    assert all("vector" in hit.strategies for hit in result.hits)
    similarity = {hit.name: hit.strategies["vector"] for hit in result.hits}
    others = [similarity[text] for text in SAME_PERSON if text in similarity]
    assert others
    assert similarity[TARGET] > max(others)


def test_a_fact_drawn_from_a_memory_is_not_a_second_hit(notes: None) -> None:
    result = recall_run(query="Anya Petrova novel Oslo", unit="memory", limit=10,
                        reinforce=False, now=NOW, strategies_on=("fulltext",))
    novel = [hit for hit in result.hits if "novel" in hit.name]
    assert [hit.kind for hit in novel] == ["memory"]
    assert novel[0].provenance[0]["source_id"] == f"note-{2 + SAME_PERSON.index(NOVEL)}"


def test_the_same_words_stored_twice_are_one_hit_with_both_provenances(notes: None) -> None:
    memories_remember(source="api:lyra", memories=[
        {"text": NOVEL, "source_id": "again", "occurred_at": NOW.isoformat()}])
    analysis_drain()
    retain_drain(embed=False)
    result = recall_run(query="Anya Petrova novel Oslo", unit="memory", limit=10,
                        reinforce=False, now=NOW, strategies_on=("fulltext",))
    novel = [hit for hit in result.hits if hit.name == NOVEL]
    assert len(novel) == 1
    assert sorted(p["source_id"] for p in novel[0].provenance) == sorted(
        ["again", f"note-{2 + SAME_PERSON.index(NOVEL)}"])
