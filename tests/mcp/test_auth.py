"""A bad or missing token: `cortex mcp` refuses in one line and exits non-zero; `/mcp/`
answers 401 in the API's error shape, to the SDK's client and to a plain POST."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from typing import Any

import anyio
import pytest

from memory.services.agents import agent_revoke

from .conftest import http_client, stdio_parameters

pytestmark = pytest.mark.django_db(transaction=True)


def _serve(token: str | None) -> subprocess.CompletedProcess[str]:
    parameters = stdio_parameters(token)
    return subprocess.run([parameters.command, *parameters.args], env=parameters.env,
                          cwd=parameters.cwd, input="", capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("token", [None, "not-a-token", "x" * 64])
def test_cortex_mcp_refuses_a_bad_or_missing_token_in_one_line(token: str | None) -> None:
    served = _serve(token)
    assert served.returncode != 0
    assert served.stdout == ""
    lines = served.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in served.stderr
    assert "token" in lines[0].lower()


def test_a_revoked_token_is_refused(token: str) -> None:
    agent_revoke(name="claude-mcp")
    assert "Invalid token." in _serve(token).stderr


def _post(url: str, headers: dict[str, str], message: Any) -> tuple[int, Any]:
    request = urllib.request.Request(
        f"{url}/mcp/", method="POST", headers={"Content-Type": "application/json",
                                               "Accept": "application/json, text/event-stream",
                                               **headers},
        data=json.dumps(message).encode())
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Token not-a-token"},
                                     {"Authorization": "Basic abc"}])
def test_http_refuses_a_bad_or_missing_token_with_the_error_shape(
        live_server: Any, headers: dict[str, str]) -> None:
    status, answer = _post(live_server.url, headers, {"not": "json-rpc"})
    assert status == 401
    assert answer["error"]["code"] == "not_authenticated"
    assert set(answer["error"]) == {"code", "message", "fields"}


def test_a_refused_json_rpc_request_gets_a_json_rpc_error_carrying_the_shape(
        live_server: Any) -> None:
    status, answer = _post(live_server.url, {"Authorization": "Token not-a-token"},
                           {"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
    assert status == 401
    assert (answer["id"], answer["error"]["message"]) == (7, "Invalid token.")
    assert answer["error"]["data"] == {"error": {
        "code": "not_authenticated", "message": "Invalid token.", "fields": {}}}


def _messages(error: BaseException) -> list[str]:
    if isinstance(error, BaseExceptionGroup):
        return [text for inner in error.exceptions for text in _messages(inner)]
    return [str(error)]


def test_the_sdk_client_is_refused_with_a_bad_token(live_server: Any) -> None:
    async def connect() -> None:
        async with http_client(live_server.url, "not-a-token") as client:
            await client.list_tools()

    with pytest.raises(BaseException) as refused:
        anyio.run(connect)
    assert "Invalid token." in _messages(refused.value)


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_only_post_no_stream_to_hold_a_worker(live_server: Any, token: str,
                                              method: str) -> None:
    request = urllib.request.Request(f"{live_server.url}/mcp/", method=method, headers={
        "Authorization": f"Token {token}", "Accept": "text/event-stream"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=20)
    assert refused.value.code == 405 and refused.value.headers["Allow"] == "POST"
    assert json.loads(refused.value.read())["error"]["code"] == "method_not_allowed"
