"""Requests on <prefix>.memory.query.recall and .context are answered as the REST endpoints
answer them: the same body for the same question, the same error shape and status for a
malformed request, a bad token or a missing scope (docs/nats.md)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from typing import Any

import nats
import orjson
import pytest
from rest_framework.test import APIClient

from memory import clock
from memory.models import Entity, Relation
from memory.nats.connection import subject_query
from memory.nats.responder import STATUS_HEADER, responder_run
from memory.services.agents import agent_create
from memory.services.taxonomy import taxonomy_sync
from tests.nats.conftest import Bus, run
from tests.recall.test_recall import NOW, _entity, _fact

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def responder(bus: Bus) -> Iterator[Bus]:
    """`cortex nats`'s responder, in a thread of this process (it sees this test's data)."""
    ready = threading.Event()
    holder: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []

    async def serve() -> None:
        stop = asyncio.Event()
        holder.append((asyncio.get_running_loop(), stop))
        await responder_run(url=bus.url, section=bus.section, stop=stop,
                            on_ready=lambda subjects: ready.set())

    thread = threading.Thread(target=lambda: asyncio.run(serve()))
    thread.start()
    assert ready.wait(10)
    yield bus
    loop, stop = holder[0]
    loop.call_soon_threadsafe(stop.set)
    thread.join(20)
    assert not thread.is_alive()


@pytest.fixture
def graph() -> dict[str, Entity]:
    taxonomy_sync()
    anya = _entity("world:person", "anya-kowalski", "Anya Kowalski", aliases=("Anya",))
    _fact(anya, "Anya Kowalski leads the Cortex demo in Lyon")
    demo = _entity("world:project", "cortex-demo", "Cortex demo")
    _fact(demo, "the Cortex demo moved to Lyon")
    Relation.objects.create(source=anya, target=demo, relation_type="works_on",
                            relation_class="normal", last_reinforced_at=NOW, created_at=NOW)
    return {"anya": anya, "demo": demo}


@pytest.fixture
def token() -> str:
    return agent_create(name="bus-reader", scopes=["recall:read", "context:read"])[1]


def _ask(bus: Bus, query: str, payload: bytes, token: str | None,
         header: str = "Authorization") -> tuple[int, Any]:
    async def ask() -> tuple[int, Any]:
        client = await nats.connect(bus.url)
        try:
            headers = {header: f"Token {token}"} if token is not None else None
            reply = await client.request(subject_query(bus.section, query), payload,
                                         timeout=30, headers=headers)
            return int((reply.headers or {})[STATUS_HEADER]), orjson.loads(reply.data)
        finally:
            await client.close()

    return run(ask())


def _rest(method: str, path: str, token: str | None, data: Any) -> tuple[int, Any]:
    client = APIClient()
    if token is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = (client.get(path, data) if method == "get"
                else client.post(path, data, format="json"))
    return response.status_code, response.json()


RECALL = {"q": "Anya Kowalski Lyon", "reinforce": False, "as_of": "2026-11-20T12:00:00Z",
          "limit": 5}


def test_a_recall_is_answered_as_the_rest_endpoint_answers_it(
        responder: Bus, graph: dict[str, Entity], token: str) -> None:
    status, body = _ask(responder, "recall", orjson.dumps(RECALL), token)
    assert status == 200, body
    assert body["hits"] and body["hits"][0]["key"] == graph["anya"].key
    rest = _rest("get", "/api/recall/", token, {**RECALL, "reinforce": "false"})
    assert rest == (status, body)
    # Header names are case-insensitive, as in HTTP.
    assert _ask(responder, "recall", orjson.dumps(RECALL), token, header="authorization") == rest


def test_a_context_is_answered_as_the_rest_endpoint_answers_it(
        responder: Bus, graph: dict[str, Entity], token: str) -> None:
    request = {"query": "what about Anya and the Cortex demo?", "budget_tokens": 800}
    with clock.frozen(NOW):  # the clock of the whole process, the responder's thread too
        status, body = _ask(responder, "context", orjson.dumps({**request, "session": "bus"}),
                            token)
        rest_status, rest = _rest("post", "/api/context/", token, {**request, "session": "rest"})
    assert status == rest_status == 200, body
    assert {e["key"] for e in body["entities"]} >= {graph["anya"].key}
    # The same entities in the same order (each injection reinforces, so strengths move
    # between the two calls; the ledgers are the sessions' own).
    assert [e["key"] for e in body["entities"]] == [e["key"] for e in rest["entities"]]
    assert set(body) == set(rest) and body["budget_tokens"] == rest["budget_tokens"]


@pytest.mark.parametrize(("query", "payload", "method", "path", "data"), [
    ("recall", b"{}", "get", "/api/recall/", {}),
    ("recall", orjson.dumps({"q": "Anya", "limit": 0, "unit": "planet"}), "get",
     "/api/recall/", {"q": "Anya", "limit": "0", "unit": "planet"}),
    ("context", orjson.dumps({"query": "x", "budget_tokens": -3}), "post", "/api/context/",
     {"query": "x", "budget_tokens": -3}),
    ("context", b"", "post", "/api/context/", {}),
    ("context", b"[1, 2]", "post", "/api/context/", [1, 2]),
])
def test_a_malformed_request_gets_the_api_error_shape(
        responder: Bus, token: str, query: str, payload: bytes, method: str, path: str,
        data: Any) -> None:
    status, body = _ask(responder, query, payload, token)
    assert status == 400
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "fields"}
    assert body["error"]["code"] == "invalid" and body["error"]["fields"]
    assert _rest(method, path, token, data) == (status, body)


def test_json_that_does_not_parse_is_refused_as_the_api_refuses_it(
        responder: Bus, token: str) -> None:
    status, body = _ask(responder, "context", b'{"query": ', token)
    assert status == 400 and body["error"]["code"] == "parse_error"
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    rest = client.post("/api/context/", b'{"query": ', content_type="application/json")
    assert (rest.status_code, rest.json()) == (status, body)


@pytest.mark.parametrize(("header", "expected"), [
    (None, 401), ("garbage-token", 401), ("scopeless", 403)])
def test_a_bad_token_or_a_missing_scope_is_refused_as_the_api_refuses_it(
        responder: Bus, header: str | None, expected: int) -> None:
    token = header
    if header == "scopeless":
        token = agent_create(name="bus-writer", scopes=["events:write"])[1]
    payload = {"q": "Anya"}
    status, body = _ask(responder, "recall", orjson.dumps(payload), token)
    assert status == expected and set(body["error"]) == {"code", "message", "fields"}
    assert _rest("get", "/api/recall/", token, payload) == (status, body)


def test_the_agent_s_rate_is_one_budget_with_rest(
        responder: Bus, rate_forgotten: Callable[[int], None]) -> None:
    agent, token = agent_create(name="bus-busy", scopes=["recall:read"], rate_limit="2/day")
    rate_forgotten(agent.pk)
    payload = {"q": "Anya", "reinforce": False}
    assert _ask(responder, "recall", orjson.dumps(payload), token)[0] == 200
    assert _rest("get", "/api/recall/", token, {"q": "Anya", "reinforce": "false"})[0] == 200
    status, body = _ask(responder, "recall", orjson.dumps(payload), token)
    rest_status, rest = _rest("get", "/api/recall/", token, {"q": "Anya"})
    assert status == rest_status == 429
    assert body["error"]["code"] == rest["error"]["code"] == "throttled"
    assert set(body["error"]) == {"code", "message", "fields"}
