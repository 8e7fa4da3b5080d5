"""Agents and their tokens: create, issue, revoke. Tokens are shown once and stored hashed."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from knox.models import AuthToken

from memory.models.agents import Agent, Scope

__all__ = ["agent_create", "agent_revoke", "agent_token_issue"]


def _scopes_checked(scopes: Iterable[str]) -> list[str]:
    scopes = sorted({scope.strip() for scope in scopes if scope.strip()})
    unknown = [scope for scope in scopes if scope not in Scope.values]
    if unknown:
        raise ValidationError(
            {"scopes": f"Unknown scope(s) {', '.join(unknown)}; known: {', '.join(Scope.values)}."}
        )
    return scopes


def agent_token_issue(*, agent: Agent, expires_days: int | None = None) -> str:
    """A new token for `agent`; the only time its clear text exists. None: the default TTL."""
    if expires_days is not None and expires_days <= 0:
        raise ValidationError({"expires_days": "Must be a positive number of days."})
    if expires_days is None:
        _, token = AuthToken.objects.create(user=agent.user)
    else:
        _, token = AuthToken.objects.create(user=agent.user, expiry=timedelta(days=expires_days))
    return str(token)


@transaction.atomic
def agent_create(
    *,
    name: str,
    scopes: Iterable[str],
    source: str | None = None,
    rate_limit: str = "",
    expires_days: int | None = None,
) -> tuple[Agent, str]:
    """Create an agent (and its user) and issue its first token."""
    agent = Agent(
        name=name,
        scopes=_scopes_checked(scopes),
        source=source or f"api:{name}",
        rate_limit=rate_limit,
    )
    agent.full_clean(exclude=["user"])
    User = get_user_model()
    username = f"agent.{name}"
    if User.objects.filter(username=username).exists():
        raise ValidationError({"name": "A user for this agent name already exists."})
    user = User.objects.create_user(username=username)
    user.set_unusable_password()
    user.save(update_fields=["password"])
    agent.user = user
    agent.save()
    return agent, agent_token_issue(agent=agent, expires_days=expires_days)


@transaction.atomic
def agent_revoke(*, name: str) -> int:
    """Revoke every token of the agent named `name`; returns how many were revoked."""
    agent = Agent.objects.select_related("user").get(name=name)
    deleted, _ = AuthToken.objects.filter(user=agent.user).delete()
    return int(deleted)
