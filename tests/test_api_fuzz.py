"""Schemathesis against /api/schema/: every operation the schema describes (found from the
schema itself, so a new endpoint is fuzzed without being named here), as an anonymous client,
as an agent holding every scope and as the operator (a staff session), with valid and invalid
inputs. Every response must be no server error and conform to the schema: a declared status,
a declared content type, a body of the declared shape."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from memory.models.agents import Scope
from memory.services.agents import agent_create

pytestmark = pytest.mark.django_db

EXAMPLES = 100
OPERATOR_EXAMPLES = 25  # the same permissions as the agent's, by another authentication
CSRF = "fuzzfuzzfuzzfuzzfuzzfuzzfuzzfuzz"  # 32 characters: a CSRF secret as its cookie holds it
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]

# Loaded when the module is collected (the schema view reads no database); one test per
# operation and caller. Examples and fuzzing (valid and invalid inputs), not the coverage
# phase: it multiplies the cases of every operation (GET /api/recall/ alone went from 100 to
# ~290 requests, each embedding a query of up to 2,000 characters) for a run three times longer.
schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
schema.config.phases.coverage.enabled = False


@pytest.fixture
def agent(db: None) -> dict[str, Any]:
    _, token = agent_create(name="fuzzer", scopes=Scope.values, rate_limit="1000000/min")
    return {"headers": {"Authorization": f"Token {token}"}}


@pytest.fixture
def operator(db: None) -> dict[str, Any]:
    user = get_user_model().objects.create_user("operator", password="x", is_staff=True)
    client = Client()
    client.force_login(user)
    session = client.cookies["sessionid"].value
    return {"headers": {"X-CSRFToken": CSRF},
            "cookies": {"sessionid": session, "csrftoken": CSRF}}


def _call_and_check(case: Any, caller: dict[str, Any]) -> None:
    generated = {k: v for k, v in (case.headers or {}).items() if k.lower() != "authorization"}
    headers = {**generated, **caller.get("headers", {})} if caller else case.headers
    response = case.call(headers=headers, cookies=caller.get("cookies"))
    case.validate_response(response, checks=CHECKS)


FUZZ = settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))


@pytest.fixture(autouse=True)
def _fresh_rate_counters() -> None:
    cache.clear()


@pytest.fixture(autouse=True)
def _connection_kept_open() -> Iterator[None]:
    """As Django's test client does: the end of a request must not close the test's
    connection (its transaction holds the test's rows)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@schema.parametrize()
@FUZZ
def test_anonymous(case: Any) -> None:
    _call_and_check(case, {})


@schema.parametrize()
@FUZZ
def test_agent_with_every_scope(case: Any, agent: dict[str, Any]) -> None:
    _call_and_check(case, agent)


@schema.parametrize()
@settings(FUZZ, max_examples=OPERATOR_EXAMPLES)
def test_operator(case: Any, operator: dict[str, Any]) -> None:
    _call_and_check(case, operator)
