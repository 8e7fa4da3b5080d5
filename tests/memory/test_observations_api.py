"""POST /api/observations/ and GET /api/profile/: scopes, the one error shape, idempotency."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from memory.models.observations import Observation
from memory.services.agents import agent_create
from memory.services.events import event_append_many

pytestmark = pytest.mark.django_db

URL = "/api/observations/"
OBSERVATION = {
    "category": "tool_error",
    "timestamp": "2025-06-01T10:00:00Z",
    "target_namespace": "agent:claude-code:rc",
    "topic": "pytest: database is locked",
    "actors": [{"name": "claude-code", "key": "agent:claude-code", "role": "agent"}],
    "sentiment": "negative",
    "sentiment_score": -0.5,
    "payload_typed": {"tool": "Bash", "signature": "0123456789abcdef"},
    "correlation": {"session": "s1", "thread": "", "parent": ""},
}


@pytest.fixture(autouse=True)
def _fresh_rate_counters() -> None:
    cache.clear()


def _client(*scopes: str, name: str = "analyst") -> APIClient:
    _, token = agent_create(name=name, scopes=list(scopes))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.fixture
def writer() -> APIClient:
    return _client("observations:write")


def _post(client: APIClient, body: Any) -> Any:
    return client.post(URL, data=json.dumps(body), content_type="application/json")


def _error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body: dict[str, dict[str, Any]] = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "fields"}
    return body["error"]


def test_an_observation_is_stored_under_the_agents_source_and_a_repeat_is_not(
    writer: APIClient,
) -> None:
    (event,) = event_append_many(source="api:analyst", events=[{"source_id": "x"}])
    body = OBSERVATION | {"event_ids": [event.id]}
    first = _post(writer, body)
    assert first.status_code == 201, first.content
    assert first.json()["created"] is True and first.json()["status"] == "pending"
    again = _post(writer, body)
    assert again.status_code == 200 and again.json() == first.json() | {"created": False}
    stored = Observation.objects.get()
    assert (stored.source, stored.event_ids) == ("api:analyst", [event.id])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({k: v for k, v in OBSERVATION.items() if k != "category"}, "category"),
        ({k: v for k, v in OBSERVATION.items() if k != "payload_typed"}, "payload_typed"),
        (OBSERVATION | {"category": "gossip"}, "category"),
        (OBSERVATION | {"payload_typed": {"tool": "Bash"}}, "payload_typed"),
        (OBSERVATION | {"timestamp": "not a date"}, "timestamp"),
        (OBSERVATION | {"target_namespace": "no spaces allowed"}, "target_namespace"),
        (OBSERVATION | {"sentiment_score": "very"}, "sentiment_score"),
        (OBSERVATION | {"event_ids": ["01JNOSUCHEVENT000000000000"]}, "event_ids"),
        (OBSERVATION | {"colour": "blue"}, "colour"),
        (OBSERVATION | {"source": "git"}, "source"),
        ([OBSERVATION], "non_field_errors"),
        (OBSERVATION | {"actors": 5}, "actors"),
        (OBSERVATION | {"event_ids": 5}, "event_ids"),
        (OBSERVATION | {"correlation": "s1"}, "correlation"),
        (OBSERVATION | {"sentiment": {}}, "sentiment"),  # found by tests/test_api_fuzz.py
        (OBSERVATION | {"payload_typed": {"tool": "Bash", "signature": "s",
                                          "deep": json.loads("[" * 200 + "]" * 200)}},
         "payload_typed"),
    ],
)
def test_bad_input_is_400_naming_the_field_and_writes_nothing(
    writer: APIClient, body: Any, field: str
) -> None:
    error = _error(_post(writer, body), 400)
    assert error["code"] == "invalid" and field in error["fields"], error
    assert Observation.objects.count() == 0


def test_the_payload_field_at_fault_is_named_inside_payload_typed(writer: APIClient) -> None:
    error = _error(_post(writer, OBSERVATION | {"payload_typed": {"tool": "Bash"}}), 400)
    assert error["fields"]["payload_typed"] == {"signature": "This field is required."}


@pytest.mark.parametrize("raw", [b"{nope", b"[" * 5000 + b"]" * 5000])
def test_malformed_or_absurdly_nested_json_is_400(writer: APIClient, raw: bytes) -> None:
    _error(writer.post(URL, data=raw, content_type="application/json"), 400)


def test_an_oversized_payload_is_413(writer: APIClient) -> None:
    body = OBSERVATION | {"payload_typed": {"tool": "Bash", "signature": "s", "x": "y" * 70_000}}
    assert _error(_post(writer, body), 413)["code"] == "payload_too_large"
    assert Observation.objects.count() == 0


def test_no_token_is_401_and_a_missing_scope_is_403() -> None:
    _error(_post(APIClient(), OBSERVATION), 401)
    _error(_post(_client("events:write", name="writer"), OBSERVATION), 403)
    _error(APIClient().get("/api/profile/", {"counterpart": "x"}), 401)
    _error(_client("observations:write", name="other").get("/api/profile/",
                                                            {"counterpart": "x"}), 403)


def test_the_profile_endpoint(writer: APIClient) -> None:
    for index, act in enumerate(["directive", "directive", "expressive"]):
        body = OBSERVATION | {
            "category": "interaction", "target_namespace": "agent:claude-code:relationship",
            "topic": f"message {index}", "sentiment": "neutral",
            "payload_typed": {"act": act, "speaker": "operator", "counterpart": "claude-code"}}
        assert _post(writer, body).status_code == 201
    reader = _client("recall:read", name="reader")
    profile = reader.get("/api/profile/", {"counterpart": "claude-code"}).json()
    assert profile["total"] == 3 and profile["dominant"] == "directive"
    assert profile["acts"]["directive"] == 2 and profile["shares"]["expressive"] == 0.3333
    assert "counterpart" in _error(reader.get("/api/profile/"), 400)["fields"]


def test_the_schema_documents_both_endpoints_and_their_errors() -> None:
    operator = APIClient()
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("op", password="pw", is_staff=True)
    operator.force_login(user)
    schema = operator.get("/api/schema/", {"format": "json"}).json()
    post = schema["paths"]["/api/observations/"]["post"]
    assert {"201", "400", "401", "403", "413"} <= set(post["responses"])
    assert "counterpart" in json.dumps(schema["paths"]["/api/profile/"]["get"]["parameters"])
