"""Answering the bus's requests as the REST endpoints answer them (docs/nats.md): the token
in an `Authorization: Token <token>` NATS header, checked by the API's own token
authentication, then the endpoint's scope and the API's throttles (the agent's rate); the
input validated and answered by the same code as the views (memory/queries.py); JSON parsed
as the API parses it; every refusal mapped by the API's own exception handler to
`{"error": {"code", "message", "fields"}}` with its HTTP status. The API's classes are taken
from REST_FRAMEWORK (the settings), as DRF takes them."""

from __future__ import annotations

import io
import logging
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from django.db import close_old_connections
from knox.auth import TokenAuthentication
from rest_framework import exceptions
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from memory.errors import DomainError
from memory.models.agents import Agent
from memory.queries import (
    ContextRequestSerializer,
    RecallQuerySerializer,
    context_answer,
    recall_answer,
)

logger = logging.getLogger(__name__)

ExceptionHandler = Callable[[Exception, dict[str, Any]], Response | None]

SERVER_ERROR = {"error": {"code": "server_error",
                          "message": "Internal error; nothing was written.", "fields": {}}}


@dataclass(frozen=True)
class BusAnswer:
    status: int
    body: dict[str, Any]


def _authenticated(authorization: str | None) -> tuple[Any, Any]:
    """(user, token) behind the header, by the API's token authentication (the session one
    has no meaning on the bus)."""
    try:  # as an HTTP header: latin-1
        header = (authorization or "").encode("latin-1")
    except UnicodeEncodeError:
        raise exceptions.AuthenticationFailed("Invalid token.") from None
    shim = SimpleNamespace(headers={"authorization": header},
                           META={"HTTP_AUTHORIZATION": header})
    for authentication in api_settings.DEFAULT_AUTHENTICATION_CLASSES:
        if isinstance(authentication, type) and issubclass(authentication,
                                                           TokenAuthentication):
            found: tuple[Any, Any] | None = authentication().authenticate(
                typing.cast(Request, shim))  # what it reads of a request: the header
            if found is not None:
                return found
    raise exceptions.NotAuthenticated()


def _throttle(user: Any, token: Any) -> None:
    """The API's throttles (the agent's rate: one budget with REST and MCP), as DRF runs
    them: every throttle asked, the longest wait refused."""
    shim = SimpleNamespace(user=user, auth=token)
    classes = typing.cast(list[type[BaseThrottle]], api_settings.DEFAULT_THROTTLE_CLASSES)
    throttles = [throttle_class() for throttle_class in classes]
    waits = [throttle.wait() for throttle in throttles
             if not throttle.allow_request(shim, None)]  # type: ignore[arg-type]
    if waits:
        raise exceptions.Throttled(max((wait for wait in waits if wait is not None),
                                       default=None))


def _agent(authorization: str | None, scope: str) -> Agent:
    """Authentication, the scope, the rate: in REST's order."""
    user, token = _authenticated(authorization)
    lacks = exceptions.PermissionDenied(f"This token lacks the scope '{scope}'.")
    try:
        agent: Agent = user.agent
    except Agent.DoesNotExist as error:
        raise lacks from error
    if not agent.has_scope(scope):
        raise lacks
    _throttle(user, token)
    return agent


def _body(data: bytes) -> Any:
    """As DRF reads a JSON body: parsed by its JSON parser; an empty one is no field."""
    return JSONParser().parse(io.BytesIO(data)) if data.strip() else {}


def _recall(agent: Agent, body: Any) -> dict[str, Any]:
    params = RecallQuerySerializer(data=body)
    params.is_valid(raise_exception=True)
    return recall_answer(params.validated_data)


def _context(agent: Agent, body: Any) -> dict[str, Any]:
    params = ContextRequestSerializer(data=body)
    params.is_valid(raise_exception=True)
    return context_answer(params.validated_data, agent=agent.name)


QUERIES: Mapping[str, tuple[str, Callable[[Agent, Any], dict[str, Any]]]] = {
    "recall": ("recall:read", _recall),
    "context": ("context:read", _context),
}


def _refusal(error: Exception) -> BusAnswer:
    handler: ExceptionHandler = api_settings.EXCEPTION_HANDLER
    response = handler(error, {})
    if response is None:
        raise error
    return BusAnswer(status=response.status_code, body=dict(response.data))


def bus_answer(*, query: str, data: bytes, authorization: str | None) -> BusAnswer:
    """The answer to one request on `<prefix>.memory.query.<query>` (in a worker thread)."""
    close_old_connections()
    try:
        scope, answer = QUERIES[query]
        agent = _agent(authorization, scope)
        return BusAnswer(status=200, body=answer(agent, _body(data)))
    except (DomainError, exceptions.APIException) as error:
        return _refusal(error)
    except Exception:
        logger.exception("nats: the %s request failed", query)
        return BusAnswer(status=500, body=SERVER_ERROR)
    finally:
        close_old_connections()
