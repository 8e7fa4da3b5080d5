"""POST /api/memories/: raw events first, stored once, sanitized, all or none."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from memory.models import MemoryEvent
from memory.services.memories import content_source_id
from tests.memories.conftest import T0, error_of, post

pytestmark = pytest.mark.usefixtures("synced")
SECRET = "sk-ant-api03-" + "a1B2c3D4e5F6g7H8i9J0" * 4


def test_one_memory_is_a_raw_event_of_the_agent(lyra: APIClient) -> None:
    response = post(lyra, {"text": "Anya prefers tea", "project": "cortex",
                           "occurred_at": T0.isoformat(), "metadata": {"tag": "people"}})
    assert response.status_code == 201, response.content
    (result,) = response.json()["memories"]
    event = MemoryEvent.objects.get(id=result["id"])
    assert (event.source, event.type, event.subtype) == ("api:lyra", "memory", "text")
    assert (event.project, event.actor, event.occurred_at) == ("cortex", "lyra", T0)
    assert event.payload == {"text": "Anya prefers tea", "metadata": {"tag": "people"}}
    assert result["created"] is True and result["source_id"] == event.source_id


def test_posted_twice_without_a_source_id_is_stored_once(lyra: APIClient) -> None:
    first = post(lyra, {"text": "Anya prefers tea", "project": "cortex"}).json()["memories"]
    again = post(lyra, {"text": "Anya  prefers tea", "project": "cortex"}).json()["memories"]
    assert again[0]["id"] == first[0]["id"] and again[0]["created"] is False
    assert first[0]["source_id"] == content_source_id(text="Anya prefers tea",
                                                      project="cortex", actor="lyra")
    other_project = post(lyra, {"text": "Anya prefers tea"}).json()["memories"]
    assert other_project[0]["created"] is True
    assert MemoryEvent.objects.filter(type="memory").count() == 2


def test_posted_twice_with_a_source_id_is_stored_once(lyra: APIClient) -> None:
    body = {"memories": [{"text": "one", "source_id": "m-1"}, {"text": "two", "source_id": "m-2"}]}
    first = post(lyra, body).json()["memories"]
    again = post(lyra, {"text": "one, edited", "source_id": "m-1"}).json()["memories"]
    assert [r["created"] for r in first] == [True, True]
    assert again == [{"id": first[0]["id"], "source_id": "m-1", "created": False}]
    assert MemoryEvent.objects.count() == 2


def test_secrets_are_redacted_before_storage_and_hashing(lyra: APIClient) -> None:
    text = f"The staging key is {SECRET} and the password is in the vault"
    (result,) = post(lyra, {"text": text}).json()["memories"]
    stored = MemoryEvent.objects.get(id=result["id"]).payload["text"]
    assert SECRET not in stored and "[REDACTED:" in stored
    assert SECRET not in result["source_id"]
    (again,) = post(lyra, {"text": text}).json()["memories"]
    assert again["created"] is False


def test_a_missing_text_is_400_with_the_field(lyra: APIClient) -> None:
    error = error_of(post(lyra, {"project": "cortex"}), 400)
    assert error["fields"] == {"text": "This field is required."}
    error = error_of(post(lyra, {"text": "  ", "colour": "red", "metadata": [1]}), 400)
    assert set(error["fields"]) == {"text", "colour", "metadata"}


def test_one_bad_memory_refuses_the_batch_naming_its_index(lyra: APIClient) -> None:
    body = {"memories": [{"text": "fine"}, {"text": 3}, {"text": "ok", "project": "x" * 300}]}
    error = error_of(post(lyra, body), 400)
    assert error["fields"] == {"memories": {"1": {"text": "Must be a string."},
                                            "2": {"project": "At most 255 characters."}}}
    assert not MemoryEvent.objects.exists()


def test_a_text_over_the_limit_is_413_with_the_field(lyra: APIClient) -> None:
    from memory.config import config_get

    limit = config_get().memories.max_text_chars
    error = error_of(post(lyra, {"memories": [{"text": "fine"}, {"text": "x" * (limit + 1)}]}),
                     413)
    assert error["fields"] == {"memories": {"1": {"text": f"At most {limit} characters."}}}
    assert not MemoryEvent.objects.exists()


def test_more_than_a_thousand_is_400_and_nothing_is_written(lyra: APIClient) -> None:
    error = error_of(post(lyra, {"memories": [{"text": f"m{i}"} for i in range(1001)]}), 400)
    assert "memories" in error["fields"]
    assert not MemoryEvent.objects.exists()


def test_the_scope_is_required(synced: None) -> None:
    from memory.services.agents import agent_create

    _, token = agent_create(name="reader", scopes=["events:write"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert post(client, {"text": "hello"}).status_code == 403


def test_a_posted_memory_queues_its_own_consolidation(
        lyra: APIClient, django_capture_on_commit_callbacks: Any) -> None:
    """The chain a worker runs (eager here): analysis of the memories' stream, then the
    Retain Job; no sweep needed."""
    from celery import current_app

    from memory.models import Memory

    current_app.conf.task_always_eager = True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            post(lyra, {"text": "Anya moved the Cortex demo to Lyon on March 3"})
    finally:
        current_app.conf.task_always_eager = False
    assert Memory.objects.get().text == "Anya moved the Cortex demo to Lyon on March 3"


def test_metadata_nested_too_deep_is_400_on_metadata(lyra: APIClient) -> None:
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(100):
        node["a"] = {}
        node = node["a"]
    error = error_of(post(lyra, {"text": "hello", "metadata": deep}), 400)
    assert set(error["fields"]) == {"metadata"}
    assert not MemoryEvent.objects.exists()
