from __future__ import annotations

import pytest

from insight.analyzers.sentiment import sentiment_of
from insight.analyzers.speech_acts import analyze, classify
from tests.insight.analyzers.factories import assistant_text, prompt, tool_result

EXAMPLES = [
    ("The function returns None when the list is empty.", "assertive", "en"),
    ("Fix the parser and add a test.", "directive", "en"),
    ("Can you check why CI fails?", "directive", "en"),
    ("Great, now add tests for the parser.", "directive", "en"),
    ("I'll fix the import and rerun the tests.", "commissive", "en"),
    ("Let me look at the file.", "commissive", "en"),
    ("Thanks, that works perfectly!", "expressive", "en"),
    ("Sorry about that.", "expressive", "en"),
    ("I hereby declare this release final.", "declarative", "en"),
    ("Approved.", "declarative", "en"),
    ("La fonction renvoie None quand la liste est vide.", "assertive", "fr"),
    ("Corrige le bug dans le parseur.", "directive", "fr"),
    ("Peux-tu vérifier pourquoi la CI échoue ?", "directive", "fr"),
    ("Je vais corriger l'import et relancer les tests.", "commissive", "fr"),
    ("Merci beaucoup, c'est parfait !", "expressive", "fr"),
    ("Désolé pour ça.", "expressive", "fr"),
    ("Je valide cette version.", "declarative", "fr"),
    ("C'est décidé : on part sur PostgreSQL.", "declarative", "fr"),
]


@pytest.mark.parametrize(("text", "act", "language"), EXAMPLES)
def test_each_message_is_typed_by_its_illocutionary_act(text: str, act: str,
                                                        language: str) -> None:
    (found,) = analyze([prompt(text)])
    assert (found.payload["act"], found.payload["language"]) == (act, language)


def test_the_act_most_sentences_perform_wins() -> None:
    act, counts = classify("Le test échoue. La base est vide. Relance la migration.", "fr")
    assert (act, counts) == ("assertive", {"assertive": 2, "directive": 1})


@pytest.mark.parametrize(
    ("text", "language", "label"),
    [
        ("Great work, thanks!", "en", "positive"),
        ("This is broken and annoying.", "en", "negative"),
        ("It does not work.", "en", "negative"),
        ("Production is down, this is a disaster!", "en", "critical"),
        ("Rename the variable.", "en", "neutral"),
        ("Super, merci beaucoup !", "fr", "positive"),
        ("Ça ne marche pas, c'est nul.", "fr", "negative"),
        ("ça marche pas", "fr", "negative"),
        ("Le résultat est pas terrible.", "fr", "negative"),
        ("La prod est tombée, c'est une catastrophe !", "fr", "critical"),
        ("Renomme la variable.", "fr", "neutral"),
    ],
)
def test_sentiment_in_both_languages(text: str, language: str, label: str) -> None:
    found, score = sentiment_of(text, language)
    assert found == label
    assert -1 <= score <= 1
    assert (score > 0) == (label == "positive") or label == "neutral"


def test_who_speaks_to_whom() -> None:
    events = [
        prompt("Fix the test."),
        assistant_text("I'll fix it."),
        prompt("Explore the repository.", thread="a1"),
        assistant_text("Found three modules.", actor="claude-code:a1", thread="a1"),
    ]
    found = [(d.payload["speaker"], d.payload["counterpart"], d.payload["act"])
             for d in analyze(events)]
    assert found == [
        ("operator", "claude-code", "directive"),
        ("claude-code", "operator", "commissive"),
        # A subagent run is an episode of its agent: the agent with itself, not a new party.
        ("claude-code", "claude-code", "directive"),
        ("claude-code", "claude-code", "assertive"),
    ]
    # One tally per session and pair: the subagent's two messages add up under one key.
    assert len({d.key for d in analyze(events)}) == 3
    keys = {actor["key"] for d in analyze(events) for actor in d.actors}
    assert keys == {"self:operator", "agent:claude-code"}
    assert {d.target_namespace for d in analyze(events)} == {"agent:claude-code:relationship"}


def test_non_messages_are_not_interactions() -> None:
    events = [tool_result("ok", use_id="t1"), prompt("<command-name>/clear</command-name>"),
              prompt("   "), assistant_text("API Error: 500", record={"isApiErrorMessage": True})]
    assert analyze(events) == []


def test_code_is_not_read_as_speech() -> None:
    text = "Here is the fix:\n```python\ndef f():\n    return 1\n```\nThanks for waiting!"
    act, counts = classify(text, "en")
    assert counts == {"assertive": 1, "expressive": 1}
