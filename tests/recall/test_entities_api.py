"""`/api/entities/`: pages and detail without reinforcement; feedback, pin and unpin are
decisions in the raw log before they change the entity, with the scopes they need."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from memory.models import Entity, MemoryEvent
from memory.services.agents import agent_create
from memory.services.taxonomy import taxonomy_sync
from tests.recall.test_recall import _entity

pytestmark = pytest.mark.django_db


def _client(*scopes: str) -> APIClient:
    _, token = agent_create(name=f"agent-{len(scopes)}-{'-'.join(s[:3] for s in scopes)}",
                            scopes=list(scopes))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.fixture
def entities() -> list[Entity]:
    taxonomy_sync()
    return [_entity("world:artifact", f"lib-{n}", f"library {n}") for n in range(5)] + [
        _entity("world:artifact", "billing-api/src/app.py", "billing-api/src/app.py")]


def test_pages_in_key_order_and_no_reinforcement(entities: list[Entity]) -> None:
    client = _client("recall:read")
    seen: list[str] = []
    cursor = None
    while True:
        params = {"namespace": "world:artifact", "limit": "2"}
        if cursor:
            params["cursor"] = cursor
        page = client.get("/api/entities/", params).json()
        seen += [e["key"] for e in page["entities"]]
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert seen == sorted(e.key for e in entities)
    detail = client.get(f"/api/entities/{entities[-1].key}/")
    assert detail.status_code == 200, detail.content
    assert detail.json()["key"] == entities[-1].key and detail.json()["counts"]["facts"] == 0
    assert set(Entity.objects.values_list("retrieval_count", flat=True)) == {0}
    assert client.get("/api/entities/world:artifact:nope/").status_code == 404


def test_feedback_is_a_decision_then_a_count(entities: list[Entity]) -> None:
    key = entities[0].key
    assert _client("recall:read").post(f"/api/entities/{key}/feedback/",
                                       {"outcome": "positive"}).status_code == 403
    client = _client("feedback:write")
    response = client.post(f"/api/entities/{key}/feedback/", {"outcome": "positive"})
    assert response.status_code == 200, response.content
    assert Entity.objects.get(key=key).pos == 1
    event = MemoryEvent.objects.get(type="decision", subtype="feedback")
    assert event.source.startswith("api:") and event.payload["entity"] == key
    bad = client.post(f"/api/entities/{key}/feedback/", {"outcome": "great"})
    assert bad.status_code == 400 and "outcome" in bad.json()["error"]["fields"]
    assert MemoryEvent.objects.filter(type="decision").count() == 1  # nothing for the refusal
    missing = client.post("/api/entities/world:artifact:nope/feedback/", {"outcome": "positive"})
    assert missing.status_code == 404
    assert MemoryEvent.objects.filter(type="decision").count() == 1


def test_pin_and_unpin_are_for_operators(entities: list[Entity]) -> None:
    key = entities[1].key
    assert _client("recall:read", "feedback:write").post(
        f"/api/entities/{key}/pin/").status_code == 403
    operator = _client("operator")
    pinned = operator.post(f"/api/entities/{key}/pin/")
    assert pinned.status_code == 200 and pinned.json()["pinned"] is True
    assert pinned.json()["strength"] is None
    assert operator.post(f"/api/entities/{key}/unpin/").json()["pinned"] is False
    assert list(MemoryEvent.objects.filter(type="decision").order_by("id")
                .values_list("subtype", flat=True)) == ["pin", "unpin"]
