"""The pure extraction (memory.retain.mentions) with insight's lexicon, EN and FR."""

from __future__ import annotations

from datetime import UTC, datetime

from insight.analyzers.memories import mention_lexicon
from memory.retain.mentions import claims_extract, mentions_extract

REFERENCE = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)


def _found(text: str) -> list[tuple[str, str, str]]:
    lexicon = mention_lexicon()
    return [(m.kind, m.name, m.value)
            for m in mentions_extract(text, lexicon=lexicon, reference=REFERENCE)]


def test_english_names_places_projects_and_dates() -> None:
    assert _found("Anya moved the Cortex demo to Lyon on March 3") == [
        ("name", "Anya", ""), ("project", "Cortex", ""), ("place", "Lyon", ""),
        ("date", "2026-03-03", "2026-03-03")]


def test_french_people_organisations_places_dates_and_times() -> None:
    assert _found("Réunion avec Anya chez Acme à Paris le 3 mars à 14h30") == [
        ("person", "Anya", ""), ("organization", "Acme", ""), ("place", "Paris", ""),
        ("date", "2026-03-03", "2026-03-03T14:30")]


def test_titles_suffixes_quotes_relative_days_and_lowercase_tools() -> None:
    assert _found('Called Dr. Jean Dupont from Acme Inc yesterday at 3pm about the '
                  '"Blue Harbor" project; use `pnpm`, not npm') == [
        ("person", "Jean Dupont", ""), ("organization", "Acme Inc", ""),
        ("date", "2026-11-19", "2026-11-19T15:00"), ("project", "Blue Harbor", ""),
        ("tool", "pnpm", ""), ("tool", "npm", "")]


def test_a_possessive_is_not_part_of_the_name() -> None:
    assert _found("Anya Petrova's cat is called Mochi; James’s bike") == [
        ("name", "Anya Petrova", ""), ("person", "Mochi", ""), ("name", "James", "")]


def test_a_and_to_cue_a_place_before_one_word_and_a_person_before_a_full_name() -> None:
    assert _found("Anya a prêté son banjo à Victor Lindqvist, puis est partie à Lyon") == [
        ("name", "Anya", ""), ("person", "Victor Lindqvist", ""), ("place", "Lyon", "")]
    assert _found("I talked to Jean Dupont about the trip to Oslo") == [
        ("person", "Jean Dupont", ""), ("place", "Oslo", "")]


def test_iso_dates_and_no_name_from_sentence_starting_words() -> None:
    assert _found("The meeting with Marie Curie is on 2026-12-01. Demain, penser au loyer.") \
        == [("person", "Marie Curie", ""), ("date", "2026-12-01", "2026-12-01"),
            ("date", "2026-11-21", "2026-11-21")]


def test_a_conversations_interjections_and_contractions_are_not_names() -> None:
    said = ["I've really got into pottery", "J'ai adopté un chat", "Yeah, Anya said so",
            "Wow, Caroline, that sounds fun", "Hey Mel! Good to see you", "Haha yes",
            "Did you try the new bakery?", "Congrats on the new job!", "C'est génial, Marie"]
    assert [[m[1] for m in _found(text)] for text in said] == [
        [], [], ["Anya"], ["Caroline"], ["Mel"], [], [], [], ["Marie"]]
    assert [m[1] for m in _found("Conor O'Brien met D'Artagnan")] == ["Conor O'Brien",
                                                                      "D'Artagnan"]


def test_a_tool_that_is_an_everyday_word_is_named_only_capitalised_or_quoted() -> None:
    assert _found("we should go hiking, make sure to click it") == []
    assert _found("we build with Go and `make`") == [("tool", "Go", ""), ("tool", "make", "")]


def test_a_sentence_whose_subject_is_a_mention_is_a_claim_on_it() -> None:
    lexicon = mention_lexicon()
    text = ("Postgres is not reliable under load. We like Redis. La SNCF est en grève. "
            "Anya moved the demo to Lyon. Redis n'est pas fiable.")
    mentions = mentions_extract(text, lexicon=lexicon, reference=REFERENCE)
    claims = [(mentions[c.mention].name, c.claim, c.polarity)
              for c in claims_extract(text, mentions, lexicon=lexicon)]
    # What happened ("Anya moved...") is no claim: the memory holds it.
    assert claims == [("Postgres", "Postgres is not reliable under load", -1),
                      ("SNCF", "La SNCF est en grève", 1),
                      ("Redis", "Redis n'est pas fiable", -1)]
