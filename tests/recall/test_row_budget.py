"""Full-text's row budget (memory/selectors/recall_terms.py): a source matches on the query's
rarest words that fit in its budget, a word's English and French stems together."""

from __future__ import annotations

import pytest
from django.db import connection

from memory.selectors import recall_terms
from memory.selectors.recall_terms import TermStats


def test_a_words_two_stems_count_its_rows_once() -> None:
    # "s'appelle" gives English "appel" and French "appell", held by the same 288 texts:
    # counted twice (576) they would push the name out of a 1,000-row budget.
    rows = {"chat": 4, "appel": 288, "appell": 288, "jon": 445, "jona": 445, "novak": 724}
    stats = TermStats(rows=10_000, share={s: n / 10_000 for s, n in rows.items()}, floor=0.0)
    words = [("chat",), ("appel", "appell"), ("jon", "jona"), ("novak",)]

    kept = recall_terms._fitting(words, stats, 1000)

    # 4 + 288 + 445 = 737 rows fit; adding novak's 724 would not.
    assert kept == ["appel", "appell", "chat", "jon", "jona"]


def test_the_rarest_word_is_kept_even_over_the_budget() -> None:
    stats = TermStats(rows=100, share={"a": 0.9, "b": 0.8}, floor=0.0)
    assert recall_terms._fitting([("a",), ("b",)], stats, 10) == ["b"]


@pytest.mark.django_db
def test_a_querys_stems_are_grouped_by_word() -> None:
    query = "Comment s'appelle le chat de Jonas ?"
    recall_terms._words_of.cache_clear()
    words = recall_terms._words_of(query)
    assert ("appel", "appell") in words and ("jon", "jona") in words
    # The words hold exactly the stems cortex_tsq finds in the whole query.
    with connection.cursor() as cursor:
        cursor.execute("SELECT cortex_tsq(%s)::text", [query])
        whole = set(recall_terms._LEXEME.findall(cursor.fetchone()[0]))
    assert {stem for word in words for stem in word} == whole
