"""`cortex agent create|revoke|list`, and agents and events in the admin."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from knox.models import AuthToken
from rest_framework.test import APIClient

from memory.models.agents import Agent
from memory.services.events import event_append_many

pytestmark = pytest.mark.django_db


def _run(*args: str) -> str:
    out = StringIO()
    call_command("agent", *args, stdout=out)
    return out.getvalue()


def _posts(token: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client.post("/api/events/", {"source_id": "x"}, format="json").status_code


def test_create_prints_the_token_alone_on_the_last_line_and_it_works() -> None:
    output = _run("create", "hook", "--scopes", "events:write,recall:read", "--expires-days", "30")
    token = output.rstrip("\n").splitlines()[-1]
    assert " " not in token and len(token) >= 40
    agent = Agent.objects.get(name="hook")
    assert (agent.source, agent.scopes) == ("api:hook", ["events:write", "recall:read"])
    stored = AuthToken.objects.filter(user=agent.user).values()
    assert token not in str(list(stored))  # stored hashed
    assert _posts(token) == 201


def test_create_with_a_source_and_unknown_scopes() -> None:
    _run("create", "cc", "--scopes", "events:write", "--source", "claude-code")
    assert Agent.objects.get(name="cc").source == "claude-code"
    with pytest.raises(CommandError, match="scopes"):
        _run("create", "bad", "--scopes", "events:write,everything")
    with pytest.raises(CommandError, match="name"):
        _run("create", "cc", "--scopes", "events:write")
    assert not Agent.objects.filter(name="bad").exists()


def test_revoke_and_list() -> None:
    token = _run("create", "gone", "--scopes", "events:write").rstrip().splitlines()[-1]
    assert "gone\tsource=api:gone" in _run("list")
    assert "Revoked 1 token" in _run("revoke", "gone")
    assert _posts(token) == 401
    assert "tokens=0" in _run("list")
    with pytest.raises(CommandError):
        _run("revoke", "nobody")


@pytest.fixture
def admin_client() -> APIClient:
    user = get_user_model().objects.create_superuser("root", password="pw")
    client = APIClient()
    client.force_login(user)
    return client


def test_events_are_read_only_in_the_admin(admin_client: APIClient) -> None:
    (result,) = event_append_many(source="s", events=[{"source_id": "a", "payload": {"k": 1}}])
    assert admin_client.get("/admin/memory/memoryevent/").status_code == 200
    page = admin_client.get(f"/admin/memory/memoryevent/{result.id}/change/")
    assert page.status_code == 200 and b"Save" not in page.content
    assert admin_client.get("/admin/memory/memoryevent/add/").status_code == 403
    assert admin_client.get(f"/admin/memory/memoryevent/{result.id}/delete/").status_code == 403


def test_an_agent_created_in_the_admin_gets_a_token_shown_once(admin_client: APIClient) -> None:
    response = admin_client.post(
        "/admin/memory/agent/add/",
        {"name": "web", "source": "", "scopes": ["events:write"], "rate_limit": ""},
        follow=True,
    )
    assert response.status_code == 200
    agent = Agent.objects.get(name="web")
    assert agent.source == "api:web" and AuthToken.objects.filter(user=agent.user).count() == 1
    shown = [str(m) for m in response.context["messages"]]
    token = next(m for m in shown if "shown once" in m).rsplit(" ", 1)[-1]
    assert _posts(token) == 201
    assert admin_client.get(f"/admin/memory/agent/{agent.pk}/change/").status_code == 200
    admin_client.post(
        "/admin/memory/agent/",
        {"action": "revoke_tokens", "_selected_action": [agent.pk]},
    )
    assert _posts(token) == 401
