"""The observations admin: list with filters, and the evidence events on the detail page."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from memory.services.events import event_append_many
from memory.services.observations import observation_submit
from memory.services.taxonomy import taxonomy_sync

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator() -> Client:
    user = get_user_model().objects.create_superuser("op", "op@example.org", "pw")
    client = Client()
    client.force_login(user)
    return client


def _observation(namespace: str, category: str, payload: dict[str, Any],
                 event_ids: list[str]) -> str:
    return observation_submit(
        source="insight:test", category=category, timestamp=datetime(2025, 6, 1, tzinfo=UTC),
        target_namespace=namespace, topic=f"{category} topic", payload_typed=payload,
        event_ids=event_ids).id


def test_the_list_filters_by_category_status_and_namespace_subtree(operator: Client) -> None:
    taxonomy_sync()
    _observation("agent:claude-code:rc", "tool_error", {"tool": "Bash", "signature": "s"}, [])
    _observation("world:project", "commit",
                 {"sha": "abc", "repo": "cortex", "kind": "fix"}, [])
    url = "/admin/memory/observation/"
    assert operator.get(url).status_code == 200
    by_category = operator.get(url, {"category": "commit"}).content.decode()
    assert "commit topic" in by_category and "tool_error topic" not in by_category
    assert "tool_error topic" in operator.get(url, {"status": "pending"}).content.decode()
    subtree = operator.get(url, {"target": "agent:*:rc"}).content.decode()
    assert "tool_error topic" in subtree and "commit topic" not in subtree
    assert "commit topic" not in operator.get(url, {"target": "agent"}).content.decode()


def test_the_detail_page_links_the_evidence_events(operator: Client) -> None:
    (event,) = event_append_many(source="claude-code", events=[
        {"source_id": "u1", "subtype": "user.tool_result", "payload": {"text": "boom"}}])
    pk = _observation("agent:claude-code:rc", "tool_error",
                      {"tool": "Bash", "signature": "s"}, [event.id])
    page = operator.get(f"/admin/memory/observation/{pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert f"/admin/memory/memoryevent/{event.id}/change/" in html
    assert "user.tool_result" in html and "boom" in html
