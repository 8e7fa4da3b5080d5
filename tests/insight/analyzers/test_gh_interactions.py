from __future__ import annotations

from typing import Any

from insight.analyzers.gh_interactions import analyze
from tests.insight.analyzers.factories import gh_item, gh_reply


def _seen(events: list[dict[str, Any]]) -> list[tuple[str, str, str, str]]:
    return [(d.payload["speaker"], d.payload["counterpart"], d.payload["act"],
             d.payload["language"]) for d in analyze(events)]


def test_an_item_speaks_to_the_team_and_a_reply_to_the_items_author() -> None:
    events = [
        gh_item(7, "anya", "Add the CSV export", "Please review the export format."),
        gh_reply(7, "bob", "Thanks, great work!"),
        gh_reply(7, "chloe", "Merci, super travail !"),
        gh_reply(7, "bob", "Rename the flag before merging.", kind="review"),
    ]
    assert _seen(events) == [
        ("anya", "team:acme/billing", "directive", "en"),
        ("bob", "anya", "expressive", "en"),
        ("chloe", "anya", "expressive", "fr"),
        ("bob", "anya", "directive", "en"),
    ]
    drafts = analyze(events)
    assert {d.target_namespace for d in drafts} == {"world:person"}
    assert drafts[1].actors[1] == {"name": "anya", "key": "world:person:anya",
                                   "role": "counterpart"}
    assert drafts[1].sentiment == "positive"


def test_replying_to_oneself_or_to_an_unknown_item_speaks_to_the_team() -> None:
    events = [gh_item(8, "anya", "Fix the rounding"), gh_reply(8, "anya", "Done, merging."),
              gh_reply(99, "bob", "Which version is this?")]
    assert [c for _, c, _, _ in _seen(events)] == ["team:acme/billing"] * 3


def test_the_items_author_may_come_from_a_context_event() -> None:
    item = {**gh_item(9, "anya", "Add tests"), "context": True}
    (found,) = analyze([item, gh_reply(9, "bob", "Désolé, je n'ai pas eu le temps.")])
    assert (found.payload["counterpart"], found.payload["act"]) == ("anya", "expressive")


def test_empty_bodies_say_nothing() -> None:
    assert analyze([gh_reply(1, "bob", "   ")]) == []
