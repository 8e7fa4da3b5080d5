"""MCP clients of the SDK against the real servers: `manage.py mcp` spawned over stdio on the
test database, and `/mcp/` on pytest-django's live server."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import orjson
import pytest
from django.conf import settings
from django.db import connection
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from memory.services.agents import agent_create
from memory.services.sql import connection_url

EVERY_SCOPE = ["memories:write", "events:write", "recall:read", "context:read",
               "feedback:write", "working-set"]


@pytest.fixture
def token() -> str:
    _, key = agent_create(name="claude-mcp", scopes=EVERY_SCOPE)
    return key


@pytest.fixture
def narrow_token() -> str:
    """An agent that may recall, and nothing else."""
    _, key = agent_create(name="reader-mcp", scopes=["recall:read"])
    return key


def stdio_parameters(token: str | None, *extra: str) -> StdioServerParameters:
    env = {"DATABASE_URL": connection_url(), "REDIS_URL": settings.REDIS_URL,
           "CORTEX_HOME": str(settings.CORTEX_HOME),
           "DJANGO_SETTINGS_MODULE": "cortex_site.settings",
           "PATH": os.environ.get("PATH", "")}
    args = ["manage.py", "mcp", *(["--token", token] if token else []), *extra]
    return StdioServerParameters(command=sys.executable, args=args, env=env,
                                 cwd=str(settings.BASE_DIR))


@asynccontextmanager
async def stdio_client(token: str) -> AsyncIterator[Client]:
    async with Client(stdio_parameters(token)) as client:
        yield client


@asynccontextmanager
async def http_client(url: str, token: str | None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Token {token}"} if token else {}
    async with create_mcp_http_client(headers=headers) as http, \
            Client(streamable_http_client(f"{url}/mcp/", http_client=http)) as client:
        yield client


def body(result: Any) -> Any:
    """The JSON a tool answered (the REST body, or the error shape)."""
    return orjson.loads(result.content[0].text)


@pytest.fixture(scope="session", autouse=True)
def _server_threads_let_go_of_the_test_database(
        django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """The HTTP bridge's worker threads keep their connections: ended before the test
    database is dropped."""
    yield
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                       " WHERE datname = current_database() AND pid <> pg_backend_pid()")
