"""The Claude Code hooks print Cortex's context block: at SessionStart the pinned and the
project's strongest entities, at UserPromptSubmit what the prompt recalls (not for a prompt
too short to mean anything); with Cortex down they print nothing and exit 0."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from memory.context.render import FENCE_CLOSE, FENCE_OPEN
from memory.models import Entity
from memory.services.agents import agent_create
from memory.services.taxonomy import taxonomy_sync
from tests.actuation import graphs
from tests.recall.test_recall import _entity, _fact

pytestmark = pytest.mark.django_db(transaction=True)
SESSION = "11111111-2222-4333-8444-555555555555"


def _hook(event: str, env: dict[str, str], **fields: Any) -> subprocess.CompletedProcess[bytes]:
    hook_input = {"session_id": SESSION, "cwd": "/home/op/code/shop-api",
                  "hook_event_name": event, **fields}
    return subprocess.run([sys.executable, "-m", "insight.hooks", event],
                          input=json.dumps(hook_input).encode(), env=env, capture_output=True,
                          timeout=120)


def _env(home: Path, url: str, token: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    return {**env, "CORTEX_HOME": str(home), "CORTEX_URL": url, "CORTEX_TOKEN": token,
            "CORTEX_HOOK_TIMEOUT": "30", "CORTEX_HOOK_BUDGET": "60"}


@pytest.fixture
def token() -> str:
    _, key = agent_create(name="hooks", scopes=["events:write", "context:read"],
                          source="claude-code")
    return key


@pytest.fixture
def graph() -> dict[str, Entity]:
    taxonomy_sync()
    rule = _entity("agent:claude-code:instruction", "use-uv", "always use uv, never pip")
    Entity.objects.filter(pk=rule.pk).update(pinned=True)
    pool = _entity("world:artifact", "connection-pool", "database connection pool")
    _fact(pool, "the connection pool holds at most twenty connections")
    # a project Cortex has seen: one never seen gets the pinned and global rules only
    graphs.event(session="earlier", project="shop-api", cwd="/home/op/code/shop-api",
                 at=graphs.T0)
    return {"rule": rule, "pool": pool}


def test_session_start_and_prompts_print_the_context(live_server: Any, token: str,
                                                     graph: dict[str, Entity],
                                                     tmp_path: Path) -> None:
    urllib.request.urlopen(f"{live_server.url}/api/health/", timeout=60).read()
    env = _env(tmp_path, live_server.url, token)
    started = _hook("SessionStart", env).stdout.decode()
    assert started.startswith(FENCE_OPEN) and FENCE_CLOSE in started
    assert graph["rule"].key in started
    prompt = _hook("UserPromptSubmit", env,
                   prompt="how many connections does the pool hold?").stdout.decode()
    assert graph["pool"].key in prompt
    assert graph["rule"].key not in prompt  # this session was given it already
    assert _hook("UserPromptSubmit", env, prompt="ok go").stdout == b""


def test_with_cortex_down_the_hook_prints_nothing_and_exits_cleanly(token: str,
                                                                     tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = _env(tmp_path, f"http://127.0.0.1:{port}", token)
    done = _hook("UserPromptSubmit", env, prompt="how many connections does the pool hold?")
    assert done.returncode == 0 and done.stdout == b"" and b"Traceback" not in done.stderr


def test_the_context_request_is_on_its_way_before_its_answer_is_read() -> None:
    """The hook sends its request first and reads the answer last: Cortex works on it while
    the hook captures the transcript."""
    from insight.hooks.client import Reply, post_start

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        pending = post_start(f"http://127.0.0.1:{port}/api/context/", b'{"query": "pool"}',
                             token="t", timeout=30)
        conn, _ = server.accept()
        with conn:
            received = b""
            while b'"pool"' not in received:
                received += conn.recv(65536)
            assert received.startswith(b"POST /api/context/ HTTP/1.0")
            conn.sendall(b'HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n'
                         b'{"context": "block"}')
        assert pending.reply() == Reply(200, {"context": "block"})


def test_a_long_prompt_asks_with_its_head() -> None:
    """Cortex embeds the whole query (its cost grows faster than its length) and the hook
    waits a fraction of a second: a long prompt asks with its first words."""
    from insight.hooks.context import PROMPT_QUERY_CHARS, context_request

    short = "how many connections does the pool hold?"
    long = "why does the pool run out of connections " * 100
    asked = context_request("UserPromptSubmit", {"prompt": f"  {short}\n", "cwd": "/x/shop"})
    assert asked is not None and asked["query"] == short
    asked = context_request("UserPromptSubmit", {"prompt": long, "cwd": "/x/shop"})
    assert asked is not None
    query = asked["query"]
    assert PROMPT_QUERY_CHARS // 2 < len(query) <= PROMPT_QUERY_CHARS
    assert long.startswith(query) and query.endswith(("connections", "of", "the", "pool",
                                                      "why", "does", "run", "out"))


def test_a_prompt_from_the_ide_asks_without_the_ide_s_own_words() -> None:
    """Claude Code's IDE integration opens a prompt with what the editor shows, in the same
    sentences every time: the query keeps the path, the selected text and the operator's
    words, not the tags and sentences around them."""
    from insight.hooks.context import context_request

    opened = ("<ide_opened_file>The user opened the file /home/op/code/shop-api/app/pool.py in "
              "the IDE. This may or may not be related to the current task.</ide_opened_file>"
              "why does the pool run out of connections?")
    selected = ("<ide_selection>The user selected the lines 12 to 14 from /home/op/code/"
                "shop-api/app/pool.py:\nmax_size = 10\n\nThis may or may not be related to the "
                "current task.</ide_selection>raise it to 20")
    for prompt, kept in ((opened, ["/home/op/code/shop-api/app/pool.py",
                                   "why does the pool run out of connections?"]),
                         (selected, ["/home/op/code/shop-api/app/pool.py:", "max_size = 10",
                                     "raise it to 20"])):
        asked = context_request("UserPromptSubmit", {"prompt": prompt, "cwd": "/x/shop-api"})
        assert asked is not None
        words = asked["query"].split()
        assert " ".join(words) == " ".join(" ".join(kept).split())
        assert not {"ide", "user", "opened", "selected", "task", "related"} & {
            w.strip(".<>/:_").lower() for w in words}
