"""Scopes, per endpoint: `permission_classes = [scope_required("events:write")]`.

An agent (token) needs the scope in its list. A staff user logged into the admin (session)
is the operator and holds every scope.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from memory.models.agents import Agent, Scope


def request_agent(request: Request) -> Agent | None:
    """The agent behind the request's token, or None (no token, or a session)."""
    user = request.user
    if user is None or not user.is_authenticated or request.auth is None:
        return None
    try:
        agent: Agent = user.agent
    except Agent.DoesNotExist:
        return None
    return agent


def is_operator_session(request: Request) -> bool:
    user = request.user
    if user is None or request.auth is not None:
        return False
    return bool(user.is_authenticated and user.is_staff)


@cache
def scope_required(scope: str) -> type[BasePermission]:
    if scope not in Scope.values:
        raise ValueError(f"unknown scope {scope!r}")

    class ScopeRequired(BasePermission):
        message = f"This token lacks the scope '{scope}'."

        def has_permission(self, request: Request, view: Any) -> bool:
            if is_operator_session(request):
                return True
            agent = request_agent(request)
            return agent is not None and agent.has_scope(scope)

    ScopeRequired.__name__ = ScopeRequired.__qualname__ = f"ScopeRequired[{scope}]"
    return ScopeRequired


# The operator: a staff user's session, or an agent holding the `operator` scope.
IsOperator = scope_required(Scope.OPERATOR)
