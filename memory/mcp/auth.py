"""Who calls: the agent behind a knox token (checked as memory/api/auth.py checks it),
whether it holds a scope, and its rate (the REST API's, one budget). Refusals are
DomainErrors with the API's codes."""

from __future__ import annotations

import binascii
import math
import time
from hmac import compare_digest

from django.utils import timezone
from knox.crypto import hash_token
from knox.settings import CONSTANTS
from rest_framework.settings import api_settings

from memory.errors import DomainError
from memory.models.agents import Agent
from memory.rate_limits import agent_rate_spend
from memory.selectors.tokens import token_candidates

TOKEN_SCHEMES = ("token", "bearer")


class NotAuthenticated(DomainError):
    status = 401
    default_code = "not_authenticated"
    default_message = "Invalid token."


class PermissionDenied(DomainError):
    status = 403
    default_code = "permission_denied"


class Throttled(DomainError):
    status = 429
    default_code = "throttled"


def header_token(value: str | None) -> str:
    """The key of `Authorization: Token <key>` (or `Bearer <key>`)."""
    parts = (value or "").split()
    if len(parts) != 2 or parts[0].lower() not in TOKEN_SCHEMES:
        raise NotAuthenticated("Authentication credentials were not provided: send "
                               "'Authorization: Token <token>'.")
    return parts[1]


def agent_authenticate(*, token: str | None) -> Agent:
    """The token's agent: a known, unexpired token of an active user that is an agent."""
    if not token:
        raise NotAuthenticated("No token: pass --token or set CORTEX_TOKEN.")
    try:
        digest = hash_token(token)
    except (UnicodeError, TypeError, ValueError, binascii.Error) as error:
        raise NotAuthenticated() from error
    for auth_token in token_candidates(token_key=token[: CONSTANTS.TOKEN_KEY_LENGTH]):
        if not compare_digest(digest, auth_token.digest):
            continue
        if auth_token.expiry is not None and auth_token.expiry < timezone.now():
            raise NotAuthenticated("Token expired.")
        user = auth_token.user
        try:
            agent: Agent = user.agent
        except Agent.DoesNotExist as error:
            raise NotAuthenticated("This token is not an agent's.") from error
        if not user.is_active:
            raise NotAuthenticated("User inactive or deleted.")
        return agent
    raise NotAuthenticated()


def agent_rate_check(*, agent: Agent) -> None:
    """One call spent from the agent's rate (the REST API's budget: the same counter)."""
    rate = agent.rate_limit or api_settings.DEFAULT_THROTTLE_RATES.get("agent")
    if not rate:
        return
    wait = agent_rate_spend(agent_id=agent.pk, rate=str(rate), now=time.time())
    if wait is not None:
        raise Throttled(f"Request was throttled. Expected available in {math.ceil(wait)} "
                        "seconds.")


def agent_with_scope(*, token: str | None, scope: str) -> Agent:
    agent = agent_authenticate(token=token)
    if not agent.has_scope(scope):
        raise PermissionDenied(f"This token lacks the scope '{scope}'.")
    agent_rate_check(agent=agent)
    return agent
