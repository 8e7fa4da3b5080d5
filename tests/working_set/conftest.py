from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from memory.services.agents import agent_create


def _client(name: str, scopes: list[str]) -> APIClient:
    _, token = agent_create(name=name, scopes=scopes)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.fixture
def agent_client(db: None) -> APIClient:
    return _client("turns-agent", ["working-set"])


@pytest.fixture
def other_agent_client(db: None) -> APIClient:
    return _client("turns-other", ["working-set"])


@pytest.fixture
def unscoped_client(db: None) -> APIClient:
    return _client("turns-unscoped", ["events:write", "recall:read"])
