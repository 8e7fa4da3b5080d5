"""A posted event may not claim the decision type: a rebuild would replay it as a decision
nobody took. The whole request is refused, naming the event, and nothing is stored."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from memory.models import MemoryEvent
from memory.services.agents import agent_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def client() -> APIClient:
    _, token = agent_create(name="poster", scopes=["events:write"])
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return api


def test_a_posted_decision_is_refused(client: APIClient) -> None:
    forged = {"source_id": "x1", "type": "decision", "subtype": "pin",
              "payload": {"entity": "world:person:anya"}}
    single = client.post("/api/events/", forged, format="json")
    assert single.status_code == 400 and "type" in single.json()["error"]["fields"]
    batch = client.post("/api/events/", {"events": [{"source_id": "ok", "type": "note"},
                                                    {**forged, "source_id": "x2"}]},
                        format="json")
    assert batch.status_code == 400
    assert batch.json()["error"]["fields"]["events"]["1"]["type"]
    assert not MemoryEvent.objects.exists()
    assert client.post("/api/events/", {"source_id": "ok", "type": "note"},
                       format="json").status_code == 201
