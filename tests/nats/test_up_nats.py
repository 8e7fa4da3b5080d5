"""`cortex up` with NATS_URL set: the responder answers on the bus, and an Observation posted
to the API reaches the JetStream stream through the outbox and a real Celery worker."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import nats
import orjson

from memory.nats.responder import STATUS_HEADER
from tests.nats.conftest import run, stream_delete
from tests.test_up import CORTEX, _embedded_env, _free_port, _wait_healthy

CONFIG = Path(__file__).resolve().parents[2] / "config" / "decay.yaml"


def _config(tmp_path: Path, prefix: str, stream: str) -> Path:
    text = CONFIG.read_text()
    text, found = re.subn(r"(?m)^  prefix: cortex$", f"  prefix: {prefix}", text)
    assert found == 1
    text, found = re.subn(r"(?m)^  stream: CORTEX_OBSERVATIONS$", f"  stream: {stream}", text)
    assert found == 1
    path = tmp_path / "decay.yaml"
    path.write_text(text)
    return path


def _wait_for(log: Path, text: str, proc: subprocess.Popen[str], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while text not in log.read_text():
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
        time.sleep(0.5)


def _post(url: str, token: str, body: dict[str, Any]) -> int:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Authorization": f"Token {token}",
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return int(response.status)


async def _bus(nats_url: str, prefix: str, stream: str, token: str) -> dict[str, Any]:
    client = await nats.connect(nats_url)
    try:
        refused = await client.request(f"{prefix}.memory.query.recall", b'{"q": "x"}',
                                       timeout=30)
        answered = await client.request(f"{prefix}.memory.query.recall", b'{"q": "lyon"}',
                                        timeout=60, headers={"Authorization": f"Token {token}"})
        js = client.jetstream()
        published = None
        deadline = time.monotonic() + 60
        while published is None and time.monotonic() < deadline:
            try:
                subscription = await js.pull_subscribe(f"{prefix}.memory.observations.publish",
                                                       durable="up", stream=stream)
                (published,) = await subscription.fetch(1, timeout=5)
            except Exception:  # the stream is added by the first drain
                await asyncio.sleep(0.5)
        return {"refused": (refused.headers or {}).get(STATUS_HEADER),
                "refused_body": orjson.loads(refused.data),
                "answered": (answered.headers or {}).get(STATUS_HEADER),
                "published": orjson.loads(published.data) if published else None}
    finally:
        await client.close()


def test_up_starts_the_nats_responder_and_publishes_observations(
        tmp_path: Path, nats_url: str) -> None:
    tag = f"{time.monotonic_ns():x}"
    prefix, stream = f"cortextest.up{tag}", f"CORTEX_TEST_UP{tag.upper()}"
    home = tmp_path / "home"
    env = _embedded_env(home)
    env.update(NATS_URL=nats_url, CORTEX_CONFIG=str(_config(tmp_path, prefix, stream)))
    port = _free_port()
    log = tmp_path / "up.log"
    proc = subprocess.Popen([CORTEX, "up", "--port", str(port), "--workers", "1"], env=env,
                            stdout=log.open("w"), stderr=subprocess.STDOUT, text=True)
    try:
        _wait_healthy(f"http://127.0.0.1:{port}/api/health/", proc)
        _wait_for(log, "NATS responder ready", proc)
        _wait_for(log, "default@", proc)
        created = subprocess.run(
            [CORTEX, "agent", "create", "bus", "--scopes", "observations:write,recall:read"],
            env=env, capture_output=True, text=True, timeout=60, check=True)
        token = created.stdout.strip().splitlines()[-1]
        assert _post(f"http://127.0.0.1:{port}/api/observations/", token, {
            "category": "fact", "timestamp": "2026-11-20T12:00:00+00:00",
            "target_namespace": "world:concept",
            "payload_typed": {"subject": "lyon", "text": "the demo moved to Lyon"}}) == 201
        seen = run(_bus(nats_url, prefix, stream, token))
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
        run(stream_delete(nats_url, stream))
    assert seen["refused"] == "401" and seen["refused_body"]["error"]["code"] == "not_authenticated"
    assert seen["answered"] == "200"
    assert seen["published"] is not None
    assert seen["published"]["payload_typed"]["text"] == "the demo moved to Lyon"
    assert seen["published"]["source"] == "api:bus"
    assert proc.returncode == 0, log.read_text()[-3000:]
