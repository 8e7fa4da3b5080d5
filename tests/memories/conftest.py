from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from insight.services.analysis import analysis_drain
from memory.services.agents import agent_create
from memory.services.memories import MEMORY_STREAM
from memory.services.retain import RetainReport, retain_drain
from memory.services.taxonomy import taxonomy_sync

URL = "/api/memories/"
T0 = datetime(2026, 2, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def synced(db: None) -> None:
    taxonomy_sync()
    cache.clear()


@pytest.fixture
def lyra(synced: None) -> APIClient:
    _, token = agent_create(name="lyra", scopes=["memories:write", "memories:read"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def post(client: APIClient, body: Any) -> Any:
    return client.post(URL, data=json.dumps(body), content_type="application/json")


def consolidate() -> RetainReport:
    """What the workers do: the memories' analyzer, then the Retain Job (no vectors)."""
    analysis_drain(sources=[MEMORY_STREAM])
    return retain_drain(embed=False)


def error_of(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "fields"}
    return dict(body["error"])
