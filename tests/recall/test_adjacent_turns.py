"""unit=memory: a conversation turn (a memory with a speaker) knows the turn it answers
(the previous memory of its conversation: same project, source and session, within the
gap), and a turn beside a relevant one is lifted by a share of its relevance
(docs/recall.md)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from insight.services.analysis import analysis_drain
from memory.config import config_get
from memory.models import Memory
from memory.selectors.recall_memories import memories_scored
from memory.services.memories import memories_remember
from memory.services.recall import recall_run
from memory.services.retain import retain_drain
from memory.services.taxonomy import taxonomy_sync

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
QUESTION = "Did you go to the pottery fair in Lisbon?"
ANSWER = "Yes, twice! Loved it."


def _remember(rows: list[tuple[str, str, str, int]]) -> dict[str, int]:
    """(text, actor, session, minutes before NOW) -> each text's memory id."""
    taxonomy_sync()
    memories_remember(source="api:lyra", memories=[
        {"text": text, "source_id": f"turn-{i}", "actor": actor, "project": "chat",
         "metadata": {"session": session},
         "occurred_at": (NOW - timedelta(minutes=ago)).isoformat()}
        for i, (text, actor, session, ago) in enumerate(rows)])
    analysis_drain()
    retain_drain(embed=False)
    return dict(Memory.objects.values_list("text", "id"))


def _previous(ids: list[int]) -> dict[int, int | None]:
    config = config_get()
    found = memories_scored(ids=ids, text=None, vector=None, sparse=None,
                            turn_gap_minutes=config.memories.conversation_gap_minutes)
    return {pk: m.previous for pk, m in found.items()}


def test_a_spoken_turn_knows_the_spoken_turn_it_answers() -> None:
    ids = _remember([(QUESTION, "ana", "s1", 3), (ANSWER, "ben", "s1", 2),
                     ("A note without a speaker.", "", "s1", 1),
                     ("Another session's turn.", "ana", "s2", 0)])
    previous = _previous(list(ids.values()))
    assert previous[ids[QUESTION]] is None  # the first turn
    assert previous[ids[ANSWER]] == ids[QUESTION]
    assert previous[ids["A note without a speaker."]] is None  # not a turn
    assert previous[ids["Another session's turn."]] is None  # its session's first


def test_a_turn_beyond_the_gap_answers_nothing() -> None:
    gap = config_get().memories.conversation_gap_minutes
    ids = _remember([(QUESTION, "ana", "s1", int(gap) + 10), (ANSWER, "ben", "s1", 0)])
    assert _previous(list(ids.values()))[ids[ANSWER]] is None


def test_the_reply_to_a_relevant_turn_is_lifted_by_a_share_of_its_relevance() -> None:
    _remember([(QUESTION, "ana", "s1", 3), (ANSWER, "ben", "s1", 2),
               ("Yes, twice, the bakery on the corner.", "ben", "s2", 1)])
    config = config_get()
    section = config.recall
    assert section is not None
    share = section.adjacent_share

    def hits(share: float) -> dict[str, dict[str, float]]:
        tuned = dataclasses.replace(config, recall=dataclasses.replace(
            section, adjacent_share=share))
        result = recall_run(query="pottery fair Lisbon twice", unit="memory", reinforce=False,
                            now=NOW, strategies_on=("fulltext",), config=tuned)
        return {hit.name: hit.strategies for hit in result.hits}

    without, with_ = hits(0.0), hits(share)
    asked = without[QUESTION]["fulltext"]
    assert asked > 0
    assert "adjacent" not in without[ANSWER]
    assert with_[ANSWER]["adjacent"] == pytest.approx(share * asked, abs=1e-6)
    # the other session's turn answers nothing found: not lifted
    assert "adjacent" not in with_["Yes, twice, the bakery on the corner."]
