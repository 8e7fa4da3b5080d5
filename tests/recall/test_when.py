"""The time a query names, as a window (memory/recall/when.py): each expected window is
written out by hand from the calendar."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.recall.when import BEFORE_DAYS, query_window

# Asked on Friday 26 January 2024 at 18:00 UTC.
NOW = datetime(2024, 1, 26, 18, 0, tzinfo=UTC)


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


@pytest.mark.parametrize(("query", "start", "end"), [
    ("what did we deploy on the night of 10.01.2024?", day(2024, 1, 10), day(2024, 1, 11)),
    ("what broke on 2023-12-05", day(2023, 12, 5), day(2023, 12, 6)),
    ("the deploy of 12/25/2023", day(2023, 12, 25), day(2023, 12, 26)),
    ("How many naps on January 6 2024?", day(2024, 1, 6), day(2024, 1, 7)),
    ("What pasta did Kate make on 29 Dec 2023?", day(2023, 12, 29), day(2023, 12, 30)),
    ("which release ships on the 10th of February 2024?", day(2024, 2, 10), day(2024, 2, 11)),
    ("qu'a-t-on décidé le 3 mars 2023 ?", day(2023, 3, 3), day(2023, 3, 4)),
    # Without its year: the latest such day at or before the question.
    ("what did we ship on the 5th of January", day(2024, 1, 5), day(2024, 1, 6)),
    ("what did we ship on March 3", day(2023, 3, 3), day(2023, 3, 4)),
    ("What did she do in May 2023?", day(2023, 5, 1), day(2023, 6, 1)),
    ("les migrations en mars", day(2023, 3, 1), day(2023, 4, 1)),
    ("the outage in January", day(2024, 1, 1), day(2024, 2, 1)),
    ("the football match in 2017", day(2017, 1, 1), day(2018, 1, 1)),
    ("what did I fix yesterday", day(2024, 1, 25), day(2024, 1, 26)),
    ("qu'est-ce que j'ai fait hier", day(2024, 1, 25), day(2024, 1, 26)),
    ("the bug from last week", day(2024, 1, 19), day(2024, 1, 26)),
    ("the invoices of last month", day(2023, 12, 1), day(2024, 1, 1)),
    ("le budget de l'année dernière", day(2023, 1, 1), day(2024, 1, 1)),
    ("la décision de la semaine dernière", day(2024, 1, 19), day(2024, 1, 26)),
    # Eight days ago, give or take a quarter of it (two days).
    ("the call 8 days ago", day(2024, 1, 16), day(2024, 1, 21)),
    ("How long was the shift on New Year's Eve?", day(2023, 12, 31), day(2024, 1, 1)),
    # "the 2024 New Year" is the night 2023 ended.
    ("the 2024 New Year's party", day(2023, 12, 31), day(2024, 1, 2)),
    ("gifts for Christmas", day(2023, 12, 24), day(2023, 12, 27)),
    # "before X": the days leading up to X.
    ("Did she take the test before December 23rd, 2023?",
     day(2023, 12, 23 - BEFORE_DAYS), day(2023, 12, 23)),
])
def test_a_named_time_is_its_window(query: str, start: datetime, end: datetime) -> None:
    window = query_window(query, now=NOW)
    assert window is not None
    assert (window.start, window.end) == (start, end)


@pytest.mark.parametrize("query", [
    "which package manager should I use",
    "What may Kate bring to the party?",
    "the day after the concert",
    "retry with backoff in the HTTP client",
    "what is 10.5 times 3",
])
def test_a_query_naming_no_time_has_no_window(query: str) -> None:
    assert query_window(query, now=NOW) is None
