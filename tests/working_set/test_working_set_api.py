"""/api/sessions/<id>/working-set/: the engine per agent session, stored in PostgreSQL."""

from __future__ import annotations

import math
from typing import Any

import pytest
from rest_framework.test import APIClient

from memory.models.working_set import WorkingItem, WorkingSession

BASE = "/api/sessions/claude-7f3a.1/working-set/"
pytestmark = pytest.mark.django_db


def _post(client: APIClient, action: str, body: Any, session: str = BASE) -> Any:
    return client.post(f"{session}{action}/", body, format="json")


def _register(client: APIClient, mem_id: str, turn: int, **extra: Any) -> Any:
    return _post(client, "register", {"mem_id": mem_id, "turn": turn, **extra})


def _assert_error(response: Any, status: int, field: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.content
    error: dict[str, Any] = response.json()["error"]
    assert set(error) == {"code", "message", "fields"}
    if field is not None:
        assert field in error["fields"], error
    return error


def test_register_then_read_back(agent_client: APIClient) -> None:
    response = _register(agent_client, "rule:no-lib-x", 1, content="Never use library X",
                         is_foundational=True)
    assert response.status_code == 201
    body = response.json()
    assert body["created"] is True and body["turn"] == 1 and body["working_set_size"] == 1
    assert body["item"]["stability"] == 8.0 and body["item"]["recall_count"] == 1
    assert body["item"]["evicts_at_turn"] == 14 and body["item"]["retention"] == 1.0
    listing = agent_client.get(BASE).json()
    assert listing["turn"] == 1 and listing["eviction_threshold"] == 0.2
    assert [item["mem_id"] for item in listing["items"]] == ["rule:no-lib-x"]
    assert listing["items"][0]["content"] == "Never use library X"


def test_registering_a_present_item_again_changes_nothing(agent_client: APIClient) -> None:
    _register(agent_client, "a", 1, content="first")
    _post(agent_client, "recall", {"mem_id": "a", "turn": 2})
    again = _register(agent_client, "a", 3, content="second")
    assert again.status_code == 200 and again.json()["created"] is False
    item = WorkingItem.objects.get(mem_id="a")
    assert item.content == "first" and item.recall_count == 2


def test_a_never_recalled_item_is_evicted_at_turn_13_after_registration(
        agent_client: APIClient) -> None:
    _register(agent_client, "noise", 4)
    assert _post(agent_client, "step", {"turn": 16}).json()["evicted"] == []
    response = _post(agent_client, "step", {"turn": 17}).json()
    assert response["evicted"] == ["noise"] and response["working_set_size"] == 0
    assert agent_client.get(BASE).json()["items"] == []
    recall = _post(agent_client, "recall", {"mem_id": "noise", "turn": 17}).json()
    assert recall["recalled"] is False and recall["item"] is None


def test_worked_example_and_the_stability_product_persisted(agent_client: APIClient) -> None:
    _register(agent_client, "rule", 5, is_foundational=True)
    for turn in (10, 20):
        assert _post(agent_client, "recall", {"mem_id": "rule", "turn": turn}).json()["recalled"]
    step = _post(agent_client, "step", {"turn": 39}).json()
    assert step["evicted"] == [] and step["working_set_size"] == 1
    item = WorkingItem.objects.get(mem_id="rule")
    assert item.recall_count == 3 and item.last_touched_turn == 20 and item.evicted_turn is None
    assert item.stability == pytest.approx(8.0 * (1 + math.log(3)) * (1 + math.log(4)))
    assert WorkingSession.objects.get(key="claude-7f3a.1").turn == 39


def test_an_evicted_item_registered_again_starts_over(agent_client: APIClient) -> None:
    _register(agent_client, "a", 0)
    _post(agent_client, "recall", {"mem_id": "a", "turn": 1})
    _post(agent_client, "step", {"turn": 500})
    again = _register(agent_client, "a", 501)
    assert again.status_code == 201
    assert again.json()["item"]["recall_count"] == 1 and again.json()["item"]["stability"] == 8.0


def test_turns_never_go_backwards_and_nothing_is_written(agent_client: APIClient) -> None:
    _register(agent_client, "a", 10)
    error = _assert_error(_register(agent_client, "b", 9), 400, "turn")
    assert "before turn 10" in error["fields"]["turn"]
    _assert_error(_post(agent_client, "step", {"turn": 3}), 400, "turn")
    _assert_error(_post(agent_client, "recall", {"mem_id": "a", "turn": 9}), 400, "turn")
    assert not WorkingItem.objects.filter(mem_id="b").exists()
    assert WorkingSession.objects.get().turn == 10


@pytest.mark.parametrize(("action", "body", "field"), [
    ("register", {"mem_id": "a"}, "turn"),
    ("register", {"mem_id": "a", "turn": -1}, "turn"),
    ("register", {"mem_id": "a", "turn": "soon"}, "turn"),
    ("register", {"mem_id": "a", "turn": 10**13}, "turn"),
    ("register", {"mem_id": "", "turn": 1}, "mem_id"),
    ("register", {"mem_id": "x" * 201, "turn": 1}, "mem_id"),
    ("register", {"mem_id": "a", "turn": 1, "content": "nul\u0000byte"}, "content"),
    ("register", {"mem_id": "a", "turn": 1, "content": "x" * 10_001}, "content"),
    ("register", {"mem_id": "a", "turn": 1, "is_fundational": True}, "is_fundational"),
    ("register", {"mem_id": "a", "turn": 1, "is_foundational": "perhaps"}, "is_foundational"),
    ("register", [{"mem_id": "a", "turn": 1}], "non_field_errors"),
    ("step", {}, "turn"),
])
def test_bad_input_gets_the_one_error_shape(agent_client: APIClient, action: str, body: Any,
                                            field: str) -> None:
    _register(agent_client, "seed", 0)
    _assert_error(_post(agent_client, action, body), 400, field)
    assert WorkingItem.objects.count() == 1


def test_malformed_json_is_a_400(agent_client: APIClient) -> None:
    response = agent_client.post(f"{BASE}register/", b"{turn: 1",
                                 content_type="application/json")
    _assert_error(response, 400)


def test_unknown_session_is_a_404_and_is_not_created(agent_client: APIClient) -> None:
    other = "/api/sessions/nobody/working-set/"
    _assert_error(agent_client.get(other), 404)
    _assert_error(_post(agent_client, "step", {"turn": 1}, session=other), 404)
    _assert_error(_post(agent_client, "recall", {"mem_id": "a", "turn": 1}, session=other), 404)
    assert not WorkingSession.objects.exists()


@pytest.mark.parametrize("session", ["-leading-dash", "sp ace", "x" * 201, "sl/ash"])
def test_a_malformed_session_id_is_a_404(agent_client: APIClient, session: str) -> None:
    _assert_error(agent_client.get(f"/api/sessions/{session}/working-set/"), 404)


def test_scope_is_enforced(unscoped_client: APIClient) -> None:
    anonymous = APIClient()
    _assert_error(anonymous.get(BASE), 401)
    _assert_error(_register(anonymous, "a", 1), 401)
    _assert_error(_register(unscoped_client, "a", 1), 403)
    _assert_error(_post(unscoped_client, "step", {"turn": 1}), 403)
    _assert_error(unscoped_client.get(BASE), 403)
    bad_token = APIClient()
    bad_token.credentials(HTTP_AUTHORIZATION="Token " + "0" * 64)
    _assert_error(bad_token.get(BASE), 401)
    assert not WorkingSession.objects.exists()


def test_sessions_belong_to_their_agent(agent_client: APIClient,
                                        other_agent_client: APIClient) -> None:
    _register(agent_client, "mine", 1)
    _assert_error(other_agent_client.get(BASE), 404)
    _register(other_agent_client, "theirs", 50)
    assert [i["mem_id"] for i in agent_client.get(BASE).json()["items"]] == ["mine"]
    assert WorkingSession.objects.count() == 2


def test_listing_limit_is_validated(agent_client: APIClient) -> None:
    for index in range(3):
        _register(agent_client, f"m{index}", index)
    listing = agent_client.get(BASE, {"limit": 2}).json()
    assert listing["working_set_size"] == 3 and len(listing["items"]) == 2
    assert listing["items"][0]["mem_id"] == "m2"
    _assert_error(agent_client.get(BASE, {"limit": 0}), 400, "limit")
    _assert_error(agent_client.get(BASE, {"sort": "x"}), 400, "sort")


def test_the_schema_documents_the_endpoints_and_their_errors(agent_client: APIClient) -> None:
    schema = agent_client.get("/api/schema/", {"format": "json"}).json()
    paths = {path: ops for path, ops in schema["paths"].items() if "working-set" in path}
    assert set(paths) == {
        "/api/sessions/{session_id}/working-set/",
        "/api/sessions/{session_id}/working-set/register/",
        "/api/sessions/{session_id}/working-set/recall/",
        "/api/sessions/{session_id}/working-set/step/",
    }
    for operations in paths.values():
        for operation in operations.values():
            if isinstance(operation, dict) and "responses" in operation:
                assert {"400", "401", "403"} <= set(operation["responses"])
    assert "404" in paths["/api/sessions/{session_id}/working-set/step/"]["post"]["responses"]


def test_the_operator_session_has_every_scope(django_user_model: Any) -> None:
    operator = django_user_model.objects.create_user("op", is_staff=True)
    client = APIClient()
    client.force_authenticate(operator)
    assert _register(client, "a", 1).status_code == 201
    assert client.get(BASE).json()["working_set_size"] == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_calls_on_a_new_session_apply_one_at_a_time() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    from memory.services.agents import agent_create

    _, token = agent_create(name="turns-concurrent", scopes=["working-set"])

    def register(index: int) -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        try:
            return int(_register(client, f"item-{index}", 5 + index % 2).status_code)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=6) as pool:
        statuses = sorted(pool.map(register, range(12)))
    assert statuses.count(201) + statuses.count(400) == 12
    session = WorkingSession.objects.get()
    created = WorkingItem.objects.filter(session=session).count()
    assert created == statuses.count(201) and session.turn == 6
