"""Recall is ranked by relevance (SPEC section 8): a faded memory comes back when a question
asks for it, and a reply is found through the turn it answers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from insight.services.analysis import analysis_drain
from memory.models import Memory, MemoryEmbedding
from memory.services.memories import memories_remember
from memory.services.memories_embed import memory_embed_pending
from memory.services.recall import recall_run
from memory.services.retain import retain_drain
from memory.services.taxonomy import taxonomy_sync

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def _remember(*memories: tuple[str, str, datetime], project: str = "chat") -> None:
    taxonomy_sync()
    memories_remember(source="api:lyra", memories=[
        {"text": text, "source_id": source_id, "occurred_at": when.isoformat(),
         "project": project} for source_id, text, when in memories])
    analysis_drain()
    retain_drain(embed=False)


def _source_ids(query: str, **options: object) -> list[str]:
    result = recall_run(query=query, unit="memory", now=NOW, reinforce=False,
                        **options)  # type: ignore[arg-type]
    return [hit.provenance[0]["source_id"] for hit in result.hits]


@pytest.mark.django_db
def test_a_year_old_memory_that_answers_outranks_a_fresh_one_that_shares_a_word() -> None:
    year_ago = NOW - timedelta(days=365)
    # Full-text alone: the answer holds four of the question's stems, the fresh note three,
    # the last one; spread over [0, 1] they score 1, 0.68 and 0.05. A strength boost of up
    # to x1.25 and a faded factor of x0.8 (the old rule) put the fresh note first.
    _remember(("answer", "Caroline named her grey kitten Pixel", year_ago),
              ("fresh", "Caroline's grey kitten chewed my running shoes",
               NOW - timedelta(hours=1)),
              ("other", "a name tag", NOW - timedelta(hours=2)))
    old = Memory.objects.get(source_id="answer")
    fresh = Memory.objects.get(source_id="fresh")
    assert old.occurred_at < fresh.occurred_at
    for strategies in (("fulltext",), None):
        found = _source_ids("What name did Caroline give her grey kitten?",
                            strategies_on=strategies)
        assert found[0] == "answer", strategies
    # read at the question's time, when the answer was a year old: the same order
    assert _source_ids("What name did Caroline give her grey kitten?", as_of=NOW,
                       strategies_on=("fulltext",))[0] == "answer"


@pytest.mark.django_db
def test_strength_only_breaks_a_tie() -> None:
    # The same words said a year apart: equally relevant, the fresher (stronger) first.
    _remember(("then", "We booked the cabin by the lake.", NOW - timedelta(days=365)),
              ("now", "We booked the cabin by the lake!", NOW - timedelta(hours=1)))
    assert _source_ids("cabin lake booked", strategies_on=("fulltext",))[:2] == ["now", "then"]


@pytest.mark.django_db
def test_a_reply_is_embedded_in_the_context_of_the_turn_it_answers() -> None:
    t0 = NOW - timedelta(days=3)
    _remember(("q1", "Ana: Have you ever been to Iceland?", t0),
              ("a1", "Ben: Yes, twice! Loved it.", t0 + timedelta(minutes=2)),
              ("q2", "Ana: Did you see the new Batman movie?", t0 + timedelta(days=1)),
              ("a2", "Ben: Yes, twice! Loved it so much.", t0 + timedelta(days=1, minutes=1)),
              ("late", "Ben: ok", t0 + timedelta(days=2)))
    memory_embed_pending()
    embeddings = {e.memory.source_id: e for e in
                  MemoryEmbedding.objects.select_related("memory")}
    assert embeddings["q1"].context_vector is None  # it answers nothing
    assert embeddings["a1"].context_vector is not None
    assert embeddings["late"].context_vector is None  # a day after the last turn: none
    replies = [s for s in _source_ids("Has Ben been to Iceland?",
                                      strategies_on=("vector", "sparse")) if s in ("a1", "a2")]
    assert replies[0] == "a1"  # the reply itself, with its own provenance


@pytest.mark.django_db
def test_a_question_naming_a_time_favours_the_memories_of_that_time() -> None:
    # The same decision said three times (the same words: the same text relevance); the
    # question names the day of the second one.
    _remember(("nov05", "We decided to move the standup.", datetime(2026, 11, 5, 15, tzinfo=UTC)),
              ("nov12", "We decided to move the standup!", datetime(2026, 11, 12, 15, tzinfo=UTC)),
              ("nov18", "We decided to move the standup...",
               datetime(2026, 11, 18, 15, tzinfo=UTC)))
    question = "What did we decide about the standup on 12.11.2026?"
    # Without the time strategy the three tie and the freshest comes first.
    assert _source_ids(question, strategies_on=("fulltext",))[0] == "nov18"
    for strategies in (("fulltext", "time"), None):
        assert _source_ids(question, strategies_on=strategies)[0] == "nov12", strategies
    # The days after it count more than the days before (people speak of a day after it).
    assert _source_ids("What did we decide about the standup on 16.11.2026?",
                       strategies_on=("fulltext", "time"))[:2] == ["nov18", "nov12"]
    # Naming no time changes nothing.
    assert _source_ids("What did we decide about the standup?")[0] == "nov18"
