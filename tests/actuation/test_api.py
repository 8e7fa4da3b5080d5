"""GET /api/proposals/, POST /api/proposals/<id>/approve/ and /reject/: operators only."""

from __future__ import annotations

from unittest import mock

import pytest
from rest_framework.test import APIClient

from actuation.models import TargetRepository
from actuation.services import proposals as proposal_services
from memory.models import MemoryEvent
from memory.services.agents import agent_create
from tests.actuation.helpers import detected, detected_grants, operator


@pytest.fixture(autouse=True)
def _no_queue() -> object:
    with mock.patch.object(proposal_services, "task_enqueue"):
        yield


def _operator_client() -> APIClient:
    operator("alice")
    client = APIClient()
    client.login(username="alice", password="pw-alice")
    return client


@pytest.mark.django_db
def test_the_queue_and_its_filters(target: TargetRepository) -> None:
    client = _operator_client()
    proposal = detected()
    body = client.get("/api/proposals/").json()
    assert [p["id"] for p in body] == [proposal.pk]
    assert body[0]["diff"] == proposal.diff and body[0]["repository"] == "shop"
    assert client.get("/api/proposals/?state=rejected").json() == []
    assert len(client.get("/api/proposals/?diff_type=claude_md&repository=shop").json()) == 1
    assert client.get("/api/proposals/?state=nonsense").status_code == 400


@pytest.mark.django_db
def test_approve_and_reject(target: TargetRepository) -> None:
    client = _operator_client()
    first = detected()
    second = detected_grants()
    answer = client.post(f"/api/proposals/{first.pk}/approve/")
    assert answer.status_code == 200 and answer.json()["state"] == "approved"
    assert answer.json()["decided_by"] == "alice"
    again = client.post(f"/api/proposals/{first.pk}/approve/")
    assert again.status_code == 409 and again.json()["error"]["code"] == "wrong_state"
    missing = client.post(f"/api/proposals/{second.pk}/reject/", {}, format="json")
    assert missing.status_code == 400
    rejected = client.post(f"/api/proposals/{second.pk}/reject/", {"reason": "noise"},
                           format="json")
    assert rejected.status_code == 200 and rejected.json()["reject_reason"] == "noise"
    assert MemoryEvent.objects.filter(source="operator:alice", type="decision").count() == 2
    assert client.post("/api/proposals/999999/approve/").status_code == 404


@pytest.mark.django_db
def test_agents_and_strangers_are_refused(target: TargetRepository) -> None:
    proposal = detected()
    _, token = agent_create(name="bot", scopes=["recall:read", "events:write"])
    agent = APIClient()
    agent.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert agent.get("/api/proposals/").status_code == 403
    assert agent.post(f"/api/proposals/{proposal.pk}/approve/").status_code == 403
    stranger = APIClient()
    assert stranger.get("/api/proposals/").status_code in (401, 403)
    assert stranger.post(f"/api/proposals/{proposal.pk}/approve/").status_code in (401, 403)
    proposal.refresh_from_db()
    assert proposal.state == "proposed"


@pytest.mark.django_db
def test_an_agent_with_the_operator_scope_may_read_but_not_decide(
        target: TargetRepository) -> None:
    proposal = detected()
    _, token = agent_create(name="ops-bot", scopes=["operator"])
    agent = APIClient()
    agent.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert agent.get("/api/proposals/").status_code == 200
    refused = agent.post(f"/api/proposals/{proposal.pk}/approve/")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "not_an_operator"


@pytest.mark.django_db
def test_approve_with_rules_dropped(target: TargetRepository) -> None:
    client = _operator_client()
    proposal = detected_grants("Bash(npm test:*)", "Bash(ls:*)")
    assert {i["key"] for i in client.get("/api/proposals/").json()[0]["items"]} == {
        "Bash(npm test:*)", "Bash(ls:*)"}
    unknown = client.post(f"/api/proposals/{proposal.pk}/approve/", {"drop": ["Bash(rm:*)"]},
                          format="json")
    assert unknown.status_code == 400 and unknown.json()["error"]["fields"] == {
        "drop": "unknown item"}
    answer = client.post(f"/api/proposals/{proposal.pk}/approve/", {"drop": ["Bash(ls:*)"]},
                         format="json")
    assert answer.status_code == 200 and answer.json()["state"] == "approved"
    assert [i["key"] for i in answer.json()["items"] if i["dropped"]] == ["Bash(ls:*)"]
    assert "Bash(ls:*)" not in answer.json()["diff"]
