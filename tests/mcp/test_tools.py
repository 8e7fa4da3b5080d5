"""Each tool over both transports, with the SDK's own client: listing, happy paths, scopes,
the error shape for malformed arguments."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import anyio
import orjson
import pytest
from mcp import Client

from insight.services.analysis import analysis_drain
from memory.models import CompiledTrigger
from memory.models.events import MemoryEvent
from memory.services.agents import agent_create
from memory.services.compiled_truth import compiled_truth_rebuild
from memory.services.retain import retain_drain
from memory.services.taxonomy import taxonomy_sync

from .conftest import body, http_client, stdio_client

pytestmark = pytest.mark.django_db(transaction=True)

TOOLS = {"remember", "recall", "context", "feedback", "working_set_register",
         "working_set_recall", "working_set_step"}
MEMORY = "Anya Kowalski decided that the Lisbon launch moves to Friday."

Connect = Callable[[str], AbstractAsyncContextManager[Client]]


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest) -> Connect:
    if request.param == "stdio":
        return stdio_client
    server = request.getfixturevalue("live_server")
    return lambda token: http_client(server.url, token)


def run(connect: Connect, token: str, scenario: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with connect(token) as client:
            return await scenario(client)

    return anyio.run(main)


def call(connect: Connect, token: str, name: str, arguments: dict[str, Any]) -> Any:
    async def scenario(client: Client) -> Any:
        return await client.call_tool(name, arguments)

    return run(connect, token, scenario)


def test_the_tools_are_listed_with_their_arguments(connect: Connect, token: str) -> None:
    async def scenario(client: Client) -> Any:
        return (await client.list_tools()).tools, \
            (await client.list_resource_templates()).resource_templates

    tools, templates = run(connect, token, scenario)
    assert {tool.name for tool in tools} == TOOLS
    recall = next(tool for tool in tools if tool.name == "recall")
    assert {"query", "q", "limit", "top_k", "unit"} <= set(recall.input_schema["properties"])
    assert all(len(tool.description or "") > 40 for tool in tools)
    assert [t.uri_template for t in templates] == ["cortex://entity/{+key}"]


def test_remember_recall_context_feedback_and_compiled_truth(connect: Connect,
                                                             token: str) -> None:
    taxonomy_sync()
    stored = body(call(connect, token, "remember", {"text": MEMORY, "project": "lisbon"}))
    assert stored["memories"][0]["created"] is True
    event = MemoryEvent.objects.get(pk=stored["memories"][0]["id"])
    assert (event.source, event.type, event.payload["text"]) == ("api:claude-mcp", "memory",
                                                                  MEMORY)
    analysis_drain()
    retain_drain(embed=False)

    async def reads(client: Client) -> Any:
        memories = await client.call_tool("recall", {"q": "Lisbon launch", "unit": "memory",
                                                     "top_k": 3})
        entities = await client.call_tool("recall", {"query": "Anya Kowalski"})
        return body(memories), body(entities)

    memories, entities = run(connect, token, reads)
    assert memories["unit"] == "memory" and memories["hits"][0]["text"] == MEMORY
    assert len(memories["hits"]) <= 3
    key = entities["hits"][0]["key"]
    assert "anya" in key

    async def uses(client: Client) -> Any:
        given = await client.call_tool("context", {"query": "Anya Kowalski", "session": "s1",
                                                   "budget_tokens": 2000})
        again = await client.call_tool("context", {"q": "Anya Kowalski", "session": "s1",
                                                   "budget_tokens": 2000})
        rated = await client.call_tool("feedback", {"key": key, "outcome": "positive"})
        return body(given), body(again), body(rated)

    given, again, rated = run(connect, token, uses)
    assert key in [entity["key"] for entity in given["entities"]]
    assert "<cortex-context" in given["context"]
    assert key in again["already_given"]
    assert rated["key"] == key

    compiled_truth_rebuild(key=key, trigger=CompiledTrigger.API, wait=False)

    async def resource(client: Client) -> Any:
        return await client.read_resource(f"cortex://entity/{key}")

    contents = run(connect, token, resource).contents
    assert "Anya Kowalski" in contents[0].text


def test_remember_an_event(connect: Connect, token: str) -> None:
    event = {"source_id": "e-1", "type": "note", "payload": {"text": "hello"}}
    answer = body(call(connect, token, "remember", {"event": event}))
    stored = MemoryEvent.objects.get(pk=answer["events"][0]["id"])
    assert (stored.source, stored.source_id, stored.type) == ("api:claude-mcp", "e-1", "note")


def test_the_working_set_of_a_session(connect: Connect, token: str) -> None:
    async def scenario(client: Client) -> Any:
        first = await client.call_tool("working_set_register", {
            "session": "s-1", "mem_id": "m1", "turn": 0, "content": "the plan"})
        used = await client.call_tool("working_set_recall",
                                      {"session": "s-1", "mem_id": "m1", "turn": 1})
        stepped = await client.call_tool("working_set_step", {"session": "s-1", "turn": 2})
        back = await client.call_tool("working_set_step", {"session": "s-1", "turn": 1})
        return body(first), body(used), body(stepped), back

    first, used, stepped, back = run(connect, token, scenario)
    assert first["created"] is True and first["item"]["mem_id"] == "m1"
    assert used["recalled"] is True and used["item"]["recall_count"] >= 1
    assert stepped["turn"] == 2 and stepped["working_set_size"] == 1
    assert back.is_error and body(back)["error"]["code"] == "invalid"


def test_a_missing_scope_is_refused_with_the_error_shape(connect: Connect,
                                                         narrow_token: str) -> None:
    result = call(connect, narrow_token, "remember", {"text": MEMORY})
    assert result.is_error
    assert body(result) == {"error": {
        "code": "permission_denied", "message": "This token lacks the scope 'memories:write'.",
        "fields": {}}}
    assert not MemoryEvent.objects.exists()


@pytest.mark.parametrize(("name", "arguments", "field"), [
    ("recall", {"query": "x", "limit": "many"}, "limit"),
    ("recall", {"query": "x", "unit": "everything"}, "unit"),
    ("recall", {}, "query"),
    ("context", {"query": "x"}, "budget_tokens"),
    ("feedback", {"key": "world:person:nobody", "outcome": "meh"}, "outcome"),
    ("working_set_step", {"session": "no spaces", "turn": 1}, "session"),
])
def test_a_malformed_argument_is_answered_with_the_error_shape(
        connect: Connect, token: str, name: str, arguments: dict[str, Any], field: str) -> None:
    result = call(connect, token, name, arguments)
    assert result.is_error
    error = body(result)["error"]
    assert error["code"] == "invalid" and set(error["fields"]) == {field}
    assert error["message"] == "The request is invalid."


def test_recall_as_of_a_naive_time_and_a_time_zone(connect: Connect, token: str) -> None:
    async def scenario(client: Client) -> Any:
        return [await client.call_tool("recall", {"query": "Anya", "as_of": at})
                for at in ("2026-01-01T10:00:00", "2026-01-01T10:00:00+02:00")]

    for result in run(connect, token, scenario):
        assert not result.is_error and body(result)["hits"] == []


def test_an_unknown_entity_is_not_found(connect: Connect, token: str) -> None:
    error = body(call(connect, token, "feedback", {"key": "world:person:nobody",
                                                   "outcome": "positive"}))["error"]
    assert error["code"] == "not_found"


def test_the_agent_rate_is_the_rest_apis_one_budget(
        connect: Connect, rate_forgotten: Callable[[int], None]) -> None:
    agent, limited = agent_create(name="limited-mcp", scopes=["recall:read"],
                                  rate_limit="2/hour")  # a window three calls cannot straddle
    rate_forgotten(agent.pk)

    async def scenario(client: Client) -> Any:
        return [await client.call_tool("recall", {"query": "anything"}) for _ in range(3)]

    first, second, third = run(connect, limited, scenario)
    assert not first.is_error and not second.is_error
    error = body(third)["error"]
    assert third.is_error and error["code"] == "throttled"
    assert error["message"].startswith("Request was throttled.")


def test_an_unknown_entity_resource_is_not_found_with_the_error_shape(connect: Connect,
                                                                      token: str) -> None:
    async def scenario(client: Client) -> Any:
        await client.read_resource("cortex://entity/world:person:nobody")

    with pytest.raises(BaseException) as refused:
        run(connect, token, scenario)
    error = refused.value
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    shape = orjson.loads(str(error))
    assert shape["error"]["code"] == "not_found" and shape["error"]["fields"] == {
        "key": "No such entity."}
