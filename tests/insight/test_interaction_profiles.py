"""The interaction profile of the fixture transcripts, as `GET /api/profile/` answers it, is
the one the per-message observations gave (expected_fixture_profiles.json, computed on the
code before interactions were tallied per session and pair; `CORTEX_REGENERATE_EXPECTED=1`
rewrites it for review).

Every counterpart and every (counterpart, speaker) the transcripts hold is asked, and one
nobody is."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from insight.producers.base import NoProgress
from insight.producers.claude_code import ClaudeCodeProducer
from insight.services.analysis import analysis_drain
from memory.services.agents import agent_create
from memory.services.retain import retain_drain

pytestmark = [pytest.mark.django_db, pytest.mark.fixtures]

EXPECTED = Path(__file__).with_name("expected_fixture_profiles.json")
REGENERATE = os.environ.get("CORTEX_REGENERATE_EXPECTED") == "1"
PARTIES = ("operator", "claude-code", "nobody")


def _reader() -> APIClient:
    cache.clear()
    _, token = agent_create(name="profile-reader", scopes=["recall:read"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def _profiles(client: APIClient) -> dict[str, Any]:
    answers = {}
    for counterpart in PARTIES:
        for speaker in (None, *PARTIES):
            query = {"counterpart": counterpart} | ({"speaker": speaker} if speaker else {})
            response = client.get("/api/profile/", query)
            assert response.status_code == 200, response.content
            answers[f"{counterpart} <- {speaker or '*'}"] = response.json()
    return answers


def test_the_profiles_of_the_fixture_transcripts_are_the_per_message_ones(
        shared_fixtures: Path) -> None:
    ClaudeCodeProducer(roots=[shared_fixtures / "claude-code"]).run(progress=NoProgress())
    assert analysis_drain().held_back == []
    retain_drain(embed=False)
    seen = _profiles(_reader())
    if REGENERATE:
        EXPECTED.write_text(json.dumps(seen, indent=1, sort_keys=True) + "\n")
        pytest.skip(f"{EXPECTED.name} rewritten: review it by eye")
    assert seen == json.loads(EXPECTED.read_text())
