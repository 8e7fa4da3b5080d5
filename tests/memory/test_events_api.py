"""POST and GET /api/events/: agents, scopes, source binding, every bad input, pages."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from knox.models import AuthToken
from rest_framework.test import APIClient

from memory import rate_limits
from memory.models.events import MemoryEvent
from memory.services.agents import agent_create, agent_revoke

pytestmark = pytest.mark.django_db

URL = "/api/events/"


def _client(token: str | None = None) -> APIClient:
    client = APIClient()
    if token:
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.fixture(autouse=True)
def _fresh_rate_counters() -> None:
    cache.clear()


@pytest.fixture
def writer() -> APIClient:
    _, token = agent_create(name="writer", scopes=["events:write", "events:read"])
    return _client(token)


def _post(client: APIClient, body: Any, **headers: Any) -> Any:
    return client.post(URL, data=json.dumps(body), content_type="application/json", **headers)


def _error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body: dict[str, dict[str, Any]] = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "fields"}
    return body["error"]


def test_one_event_is_stored_under_the_agent_s_source(writer: APIClient) -> None:
    response = _post(writer, {"source_id": "e1", "type": "note", "payload": {"text": "hi"}})
    assert response.status_code == 201
    (result,) = response.json()["events"]
    assert result["source_id"] == "e1" and result["created"] is True
    event = MemoryEvent.objects.get(pk=result["id"])
    assert (event.source, event.type, event.payload) == ("api:writer", "note", {"text": "hi"})


def test_a_batch_answers_in_order_and_a_repeat_is_not_created(writer: APIClient) -> None:
    _post(writer, {"source_id": "b"})
    response = _post(writer, {"events": [{"source_id": "a"}, {"source_id": "b"}]})
    assert response.status_code == 201
    answers = response.json()["events"]
    assert [(a["source_id"], a["created"]) for a in answers] == [("a", True), ("b", False)]
    assert MemoryEvent.objects.count() == 2


def test_an_empty_batch_is_fine(writer: APIClient) -> None:
    response = _post(writer, {"events": []})
    assert response.status_code == 201 and response.json() == {"events": []}


def test_an_agent_with_its_own_source_writes_there_and_cannot_set_another() -> None:
    _, token = agent_create(name="hook", scopes=["events:write"], source="claude-code")
    client = _client(token)
    assert _post(client, {"source_id": "x"}).status_code == 201
    assert MemoryEvent.objects.get().source == "claude-code"
    error = _error(_post(client, {"source_id": "y", "source": "git"}), 400)
    assert "source" in error["fields"]
    assert MemoryEvent.objects.count() == 1


def test_idempotency_key_same_body_repeats_and_other_body_is_422(writer: APIClient) -> None:
    body = {"source_id": "k1", "payload": {"n": 1}}
    first = _post(writer, body, HTTP_IDEMPOTENCY_KEY="key-1").json()["events"][0]
    again = _post(writer, body, HTTP_IDEMPOTENCY_KEY="key-1").json()["events"][0]
    assert again == {**first, "created": False}
    other = _post(writer, {"source_id": "k2"}, HTTP_IDEMPOTENCY_KEY="key-1")
    assert "Idempotency-Key" in _error(other, 422)["fields"]
    assert not MemoryEvent.objects.filter(source_id="k2").exists()
    batch = _post(writer, {"events": [{"source_id": "k3"}]}, HTTP_IDEMPOTENCY_KEY="key-2")
    assert "Idempotency-Key" in _error(batch, 400)["fields"]


BAD_BODIES = [
    ({}, "source_id"),
    ({"source_id": 7}, "source_id"),
    ({"source_id": "a", "occurred_at": "not a date"}, "occurred_at"),
    ({"source_id": "a", "payload": "text"}, "payload"),
    ({"source_id": "a", "correlation": {"session": 1}}, "correlation"),
    ({"source_id": "a", "id": "01J0000000000000000000000X"}, "id"),
    ({"source_id": "a", "recorded_at": "2026-01-01T00:00:00Z"}, "recorded_at"),
    ({"source_id": "a", "source": "git"}, "source"),
    ({"events": "nope"}, "events"),
    ({"events": [{"source_id": "a"}], "source": "git"}, "source"),
    ([{"source_id": "a"}], "non_field_errors"),
]


@pytest.mark.parametrize(("body", "field"), BAD_BODIES)
def test_bad_bodies_name_the_field_and_write_nothing(
    writer: APIClient, body: Any, field: str
) -> None:
    assert field in _error(_post(writer, body), 400)["fields"]
    assert MemoryEvent.objects.count() == 0


def test_one_bad_event_in_a_batch_names_its_index_and_writes_nothing(writer: APIClient) -> None:
    body = {"events": [{"source_id": "ok"}, {"source_id": "ok2", "type": 3}]}
    fields = _error(_post(writer, body), 400)["fields"]
    assert fields == {"events": {"1": {"type": "Must be a string."}}}
    assert MemoryEvent.objects.count() == 0


def test_a_batch_over_1000_is_refused(writer: APIClient) -> None:
    body = {"events": [{"source_id": str(i)} for i in range(1001)]}
    assert "events" in _error(_post(writer, body), 400)["fields"]
    assert MemoryEvent.objects.count() == 0


@pytest.mark.parametrize("raw", [b"{", b'{"source_id": "a",}', b'{"source_id": NaN}', b"\xff"])
def test_malformed_json_is_400(writer: APIClient, raw: bytes) -> None:
    response = writer.post(URL, data=raw, content_type="application/json")
    assert _error(response, 400)["code"] == "parse_error"


def test_deep_nesting_is_400_not_500(writer: APIClient) -> None:
    deep: Any = "leaf"
    for _ in range(150):
        deep = {"d": deep}
    assert "payload" in _error(_post(writer, {"source_id": "a", "payload": deep}), 400)["fields"]
    raw = b'{"source_id": "b", "payload": ' + b'{"d": ' * 5000 + b"1" + b"}" * 5001
    assert _error(writer.post(URL, data=raw, content_type="application/json"), 400)
    assert MemoryEvent.objects.count() == 0


def test_escaped_lone_surrogates_and_nul_are_cleaned_not_refused(writer: APIClient) -> None:
    raw = b'{"source_id": "s", "payload": {"t": "a\\ud800b\\u0000c"}}'
    assert writer.post(URL, data=raw, content_type="application/json").status_code == 201
    assert MemoryEvent.objects.get().payload == {"t": "a\ufffdbc"}


def test_a_payload_over_the_limit_is_413_naming_it(writer: APIClient, settings: Any) -> None:
    settings.CORTEX_MAX_PAYLOAD_BYTES = 100
    body = {"events": [{"source_id": "a"}, {"source_id": "b", "payload": {"x": "y" * 200}}]}
    error = _error(_post(writer, body), 413)
    assert error["fields"] == {"events": {"1": {"payload": "Over the size limit of 100 bytes."}}}
    assert MemoryEvent.objects.count() == 0


def test_a_request_over_the_request_cap_is_413(writer: APIClient, settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    _error(_post(writer, {"source_id": "a", "payload": {"x": "y" * 2000}}), 413)
    assert MemoryEvent.objects.count() == 0


def test_no_token_or_a_bad_one_is_401() -> None:
    _error(_post(_client(), {"source_id": "a"}), 401)
    _error(_post(_client("not-a-token"), {"source_id": "a"}), 401)
    bearer = APIClient()
    bearer.credentials(HTTP_AUTHORIZATION="Bearer abc")
    _error(_post(bearer, {"source_id": "a"}), 401)
    assert MemoryEvent.objects.count() == 0


def test_expired_and_revoked_tokens_are_401() -> None:
    agent, token = agent_create(name="temp", scopes=["events:write"])
    assert _post(_client(token), {"source_id": "a"}).status_code == 201
    AuthToken.objects.filter(user=agent.user).update(expiry=agent.created_at - timedelta(days=1))
    _error(_post(_client(token), {"source_id": "b"}), 401)
    _, fresh = agent_create(name="temp2", scopes=["events:write"])
    agent_revoke(name="temp2")
    _error(_post(_client(fresh), {"source_id": "c"}), 401)
    assert MemoryEvent.objects.count() == 1


def test_a_missing_scope_is_403() -> None:
    _, reader = agent_create(name="reader", scopes=["events:read"])
    _, writer = agent_create(name="writeonly", scopes=["events:write"])
    assert "events:write" in _error(_post(_client(reader), {"source_id": "a"}), 403)["message"]
    _error(_client(writer).get(URL), 403)
    assert _client(reader).get(URL).status_code == 200
    assert MemoryEvent.objects.count() == 0


def test_the_operator_s_admin_session_holds_every_scope() -> None:
    operator = get_user_model().objects.create_user("op", password="pw", is_staff=True)
    client = APIClient(enforce_csrf_checks=False)
    client.force_login(operator)
    assert _post(client, {"source_id": "a"}).status_code == 201
    assert MemoryEvent.objects.get().source == "operator:op"
    assert client.get(URL).status_code == 200
    plain = get_user_model().objects.create_user("someone", password="pw")
    client.force_login(plain)
    _error(client.get(URL), 403)


def test_the_agent_rate_limit_answers_429() -> None:
    agent, token = agent_create(name="slow", scopes=["events:read"], rate_limit="2/min")
    client = _client(token)
    assert [client.get(URL).status_code for _ in range(2)] == [200, 200]
    response = client.get(URL)
    assert _error(response, 429)["code"] == "throttled"
    assert int(response["Retry-After"]) <= 60
    _, other = agent_create(name="other", scopes=["events:read"], rate_limit="2/min")
    assert _client(other).get(URL).status_code == 200  # per agent, not global


def test_an_agent_is_served_when_its_rate_cannot_be_counted(
    settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    _, token = agent_create(name="busy", scopes=["events:write"], rate_limit="2/min")
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    rate_limits._redis.cache_clear()
    try:
        response = _post(_client(token), {"source_id": "kept"})
    finally:
        rate_limits._redis.cache_clear()
    assert response.status_code == 201
    assert MemoryEvent.objects.filter(source_id="kept").exists()
    assert "not counted: Redis ConnectionError" in caplog.text


def test_a_single_post_is_a_few_queries(writer: APIClient) -> None:
    _post(writer, {"source_id": "warm"})
    with CaptureQueriesContext(connection) as queries:
        assert _post(writer, {"source_id": "a", "payload": {"k": "v"}}).status_code == 201
    assert len(queries) <= 4  # token+user+agent, savepoint, insert, release


def _seed(writer: APIClient) -> None:
    events = [
        {"source_id": f"e{i}", "type": "claude-code" if i % 2 else "git",
         "subtype": "commit" if i % 2 == 0 else "user.prompt", "project": f"p{i % 3}",
         "occurred_at": f"2026-01-{i + 1:02d}T12:00:00Z"}
        for i in range(10)
    ]
    assert _post(writer, {"events": events}).status_code == 201


def _ids(response: Any) -> list[str]:
    assert response.status_code == 200, response.content
    return [event["source_id"] for event in response.json()["events"]]


def test_get_filters(writer: APIClient) -> None:
    _seed(writer)
    assert _ids(writer.get(URL, {"type": "git"})) == ["e0", "e2", "e4", "e6", "e8"]
    assert _ids(writer.get(URL, {"subtype": "user.prompt", "project": "p1"})) == ["e1", "e7"]
    assert _ids(writer.get(URL, {"source": "api:writer", "project": "p2"})) == ["e2", "e5", "e8"]
    assert _ids(writer.get(URL, {"source": "git"})) == []
    window = {"occurred_after": "2026-01-03T00:00:00Z", "occurred_before": "2026-01-05T00:00:00Z"}
    assert _ids(writer.get(URL, window)) == ["e2", "e3"]
    event = writer.get(URL, {"limit": 1}).json()["events"][0]
    assert set(event) == {
        "id", "source", "source_id", "occurred_at", "recorded_at", "type", "subtype", "actor",
        "project", "correlation", "payload", "redaction_count",
    }


def test_get_pages_with_a_cursor_both_ways(writer: APIClient) -> None:
    _seed(writer)
    seen, cursor = [], None
    while True:
        params: dict[str, Any] = {"limit": 4, **({"cursor": cursor} if cursor else {})}
        page = writer.get(URL, params).json()
        seen += [event["source_id"] for event in page["events"]]
        cursor = page["next_cursor"]
        if not page["has_more"]:
            break
    assert seen == [f"e{i}" for i in range(10)]
    assert _ids(writer.get(URL, {"cursor": cursor})) == []  # polling from the end
    _post(writer, {"source_id": "later"})
    assert _ids(writer.get(URL, {"cursor": cursor})) == ["later"]
    params = {"order": "newest", "limit": 3}
    newest: dict[str, Any] = writer.get(URL, params).json()
    assert [e["source_id"] for e in newest["events"]] == ["later", "e9", "e8"]
    older = writer.get(URL, {**params, "cursor": newest["next_cursor"]})
    assert _ids(older) == ["e7", "e6", "e5"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"cursor": "garbage!"}, "cursor"),
        ({"cursor": "WzEsMiwzXQ"}, "cursor"),  # valid base64 JSON, not a cursor
        ({"cursor": "WzkyMjMzNzIwMzY4NTQ3NzU4MDgsIngiXQ"}, "cursor"),  # beyond bigint
        ({"cursor": "Wy0xLCJ4Il0"}, "cursor"),  # a negative position
        ({"occurred_after": "soon"}, "occurred_after"),
        ({"limit": 0}, "limit"),
        ({"limit": 5000}, "limit"),
        ({"order": "random"}, "order"),
    ],
)
def test_get_bad_parameters_are_400(writer: APIClient, params: dict[str, Any], field: str) -> None:
    assert field in _error(writer.get(URL, params), 400)["fields"]


def test_the_schema_documents_the_endpoint_and_its_errors() -> None:
    schema = APIClient().get("/api/schema/", {"format": "json"}).json()
    post = schema["paths"]["/api/events/"]["post"]
    assert {"201", "400", "401", "403", "413", "422"} <= set(post["responses"])
    get = schema["paths"]["/api/events/"]["get"]
    assert {"200", "400", "401", "403"} <= set(get["responses"])
    assert {p["name"] for p in get["parameters"]} >= {
        "source", "type", "subtype", "project", "occurred_after", "occurred_before", "cursor",
    }


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
EVENTISH = st.fixed_dictionaries(
    {"source_id": st.text(max_size=20) | st.integers()},
    optional={
        name: JSON
        for name in (
            "type", "subtype", "actor", "project", "occurred_at", "correlation", "payload", "id",
        )
    },
)


@given(body=JSON | EVENTISH | st.fixed_dictionaries({"events": st.lists(EVENTISH, max_size=5)}))
@hypothesis_settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_any_json_body_gets_201_or_400_with_the_error_shape(writer: APIClient, body: Any) -> None:
    response = _post(writer, body)
    assert response.status_code in (201, 400), response.content
    if response.status_code == 400:
        _error(response, 400)
