"""MCP recall round trips: over stdio (`cortex mcp`) and over streamable HTTP (`/mcp/` under
gunicorn, as `cortex up` serves it), with the SDK's own client; REST recall beside them.

    python bench/mcp_latency.py                  # 2,000 memories, 200 calls per transport
    python bench/mcp_latency.py --calls 50       # a quick look

On a throwaway database `cortex_bench_mcp` of the embedded server: `--memories` free-text
memories (people, places, projects), consolidated in this process without vectors; then one
client, sequential calls (the service time plus the transport), each a `recall` tool call
with a varied query, timed from the call to its parsed result, for each of the SDK client's
protocol modes. Prints the machine, p50 and p99 for each transport and mode, and the stdio
server's start (spawn to the first tools/list).
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.databases import database_recreate, database_urls, manage  # noqa: E402
from bench.machine import machine_describe  # noqa: E402
from bench.recall_notes import QUERIES, notes_seed  # noqa: E402
from bench.serving import percentiles_text, web_served  # noqa: E402

BENCH_DB = "cortex_bench_mcp"
# The SDK client's modes: the initialize handshake (the protocol versions clients such as
# Claude Code speak today), and its default, which adopts the stateless 2026-07-28 revision.
MODES = {"legacy": "handshake protocol (legacy mode)", "auto": "2026-07-28 protocol (auto mode)"}


def _seed(count: int, seed: int) -> None:
    import django

    django.setup()
    notes_seed(count, seed)


async def _calls(client: Any, calls: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        result = await client.call_tool("recall", {"query": rng.choice(QUERIES), "limit": 10})
        times.append(time.perf_counter() - started)
        if result.is_error:
            raise RuntimeError(result.content[0].text)
    return times


def _stdio(env: dict[str, str], token: str, calls: int, seed: int,
           mode: str) -> tuple[float, list[float]]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    parameters = StdioServerParameters(command=sys.executable,
                                       args=[str(ROOT / "manage.py"), "mcp", "--token", token],
                                       env=env, cwd=str(ROOT))

    async def main() -> tuple[float, list[float]]:
        started = time.perf_counter()
        async with Client(parameters, mode=mode) as client:
            await client.list_tools()
            startup = time.perf_counter() - started
            await _calls(client, 5, seed + 1)
            return startup, await _calls(client, calls, seed)

    return anyio.run(main)


def _http(url: str, token: str, calls: int, seed: int, mode: str) -> list[float]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def main() -> list[float]:
        headers = {"Authorization": f"Token {token}"}
        async with create_mcp_http_client(headers=headers) as http, \
                Client(streamable_http_client(f"{url}/mcp/", http_client=http),
                       mode=mode) as client:
            await _calls(client, 5, seed + 1)
            return await _calls(client, calls, seed)

    return anyio.run(main)


def _rest(url: str, token: str, calls: int, seed: int) -> list[float]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port or 80, timeout=60)
    rng = random.Random(seed)
    times = []
    for _ in range(calls):
        path = f"/api/recall/?q={quote(rng.choice(QUERIES))}&limit=10"
        started = time.perf_counter()
        conn.request("GET", path, headers={"Authorization": f"Token {token}"})
        response = conn.getresponse()
        response.read()
        times.append(time.perf_counter() - started)
        if response.status != 200:
            raise RuntimeError(f"REST recall answered {response.status}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(machine_describe())
    print("load average (1, 5, 15 min) at the start: "
          + ", ".join(f"{value:.2f}" for value in os.getloadavg()))
    admin, database_url = database_urls(BENCH_DB)
    database_recreate(admin, BENCH_DB)
    os.environ.update(DATABASE_URL=database_url, CORTEX_LOG_LEVEL="WARNING")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    env = {**os.environ}
    manage(env, "migrate", "--verbosity", "0")
    manage(env, "taxonomy", "sync")
    started = time.perf_counter()
    _seed(args.memories, args.seed)
    print(f"graph: {args.memories:,} memories consolidated in "
          f"{time.perf_counter() - started:.1f} s")
    token = manage(env, "agent", "create", "bench-mcp", "--scopes", "recall:read",
                    "--rate", "100000000/min").strip().splitlines()[-1]
    for mode in MODES:
        startup, times = _stdio(env, token, args.calls, args.seed, mode)
        print(f"stdio (cortex mcp), {MODES[mode]}: start {startup * 1000:.0f} ms (spawn to the "
              f"first tools/list); recall round trip: {percentiles_text(times, ' calls')}")
    with web_served(env, workers=args.workers) as url:
        print(f"streamable HTTP (/mcp/, gunicorn {args.workers} sync workers, stateless JSON):")
        for mode in MODES:
            times = _http(url, token, args.calls, args.seed, mode)
            print(f"  {MODES[mode]}: recall round trip: {percentiles_text(times, ' calls')}")
        rest_times = _rest(url, token, args.calls, args.seed)
    print(f"REST GET /api/recall/ on the same server: {percentiles_text(rest_times, ' calls')}")

if __name__ == "__main__":
    main()
