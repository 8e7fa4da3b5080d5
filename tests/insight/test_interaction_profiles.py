"""The interaction profile of the fixture transcripts (../shared/fixtures, read from there) is
the per-message one: every message of the raw log typed alone (its act, its sentiment), then
counted here per session and pair and per counterpart and speaker, is what the tallied
observations hold and what `GET /api/profile/` answers.

The expectation is computed from the stored raw events message by message, not from the
observations, their tallies or the profile's query: what the analysis's per-pair tallying
(issue 27) and the profile's sum must preserve. Every counterpart and every (counterpart,
speaker) the transcripts hold is asked, and one nobody is."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from insight.analyzers.events import correlation, message_text
from insight.analyzers.sentiment import sentiment_of
from insight.analyzers.speech_acts import ACTS, classify, parties
from insight.analyzers.text import language_of
from insight.producers.base import NoProgress
from insight.producers.claude_code import ClaudeCodeProducer
from insight.services.analysis import analysis_drain, event_as_dict
from memory.models import MemoryEvent, Observation
from memory.services.agents import agent_create
from memory.services.retain import retain_drain

pytestmark = [pytest.mark.django_db, pytest.mark.fixtures]

NOBODY = "nobody"
Pair = tuple[str, str, str]  # (session, speaker, counterpart)


def _reader() -> APIClient:
    cache.clear()
    _, token = agent_create(name="profile-reader", scopes=["recall:read"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def _messages() -> dict[Pair, list[tuple[str, str]]]:
    """Per (session, speaker, counterpart), each message's (act, sentiment), typed alone."""
    pairs: dict[Pair, list[tuple[str, str]]] = defaultdict(list)
    for event in MemoryEvent.objects.filter(source="claude-code").order_by("id"):
        shaped = event_as_dict(event)
        who = parties(shaped)
        text = message_text(shaped)
        if who is None or not text.strip():
            continue
        language = language_of(text)
        act, _ = classify(text, language)
        pairs[(correlation(shaped)["session"], *who)].append(
            (act, sentiment_of(text, language)[0]))
    return pairs


def _profile(messages: list[tuple[str, str]], counterpart: str,
             speaker: str | None) -> dict[str, Any]:
    acts = Counter(act for act, _ in messages)
    total = len(messages)
    counts = {act: acts.get(act, 0) for act in ACTS}
    return {"counterpart": counterpart, "speaker": speaker, "total": total, "acts": counts,
            "shares": {act: round(n / total, 4) if total else 0.0 for act, n in counts.items()},
            "dominant": max(ACTS, key=lambda act: counts[act]) if total else None,
            "sentiments": dict(Counter(sentiment for _, sentiment in messages))}


def test_the_profiles_of_the_fixture_transcripts_are_the_per_message_ones(
        shared_fixtures: Path) -> None:
    ClaudeCodeProducer(roots=[shared_fixtures / "claude-code"]).run(progress=NoProgress())
    assert analysis_drain().held_back == []
    retain_drain(embed=False)
    pairs = _messages()
    assert len(pairs) > 10 and {s for _, s, _ in pairs} >= {"operator", "claude-code"}

    # One observation per pair in a session, counting each of its messages once.
    tallied = {}
    for observation in Observation.objects.filter(category="interaction"):
        p = observation.payload_typed
        pair = (observation.correlation_session, p["speaker"], p["counterpart"])
        assert pair not in tallied
        tallied[pair] = (p["messages"], p["act_counts"], p["sentiments"])
    assert tallied == {
        pair: (len(m), dict(sorted(Counter(a for a, _ in m).items())),
               dict(sorted(Counter(s for _, s in m).items())))
        for pair, m in pairs.items()}

    client = _reader()
    counterparts = {c for _, _, c in pairs}
    for counterpart in (*sorted(counterparts), NOBODY):
        speakers = sorted({s for _, s, c in pairs if c == counterpart})
        for speaker in (None, *speakers, NOBODY):
            query = {"counterpart": counterpart} | ({"speaker": speaker} if speaker else {})
            response = client.get("/api/profile/", query)
            assert response.status_code == 200, response.content
            messages = [m for (_, s, c), ms in pairs.items() for m in ms
                        if c == counterpart and speaker in (None, s)]
            assert response.json() == _profile(messages, counterpart, speaker), query
