"""The NATS tests run against a real NATS server with JetStream: the machine's (127.0.0.1:4222)
when it answers, else a private nats-server started here. Each test gets its own subject
prefix and stream (the server is shared with other runs), deleted at the end."""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import nats
import orjson
import pytest
from nats.js.errors import NotFoundError

from memory.config import DecayConfig, NatsSection
from memory.nats.connection import subject_publish
from memory.services.observations import observation_submit_many

MACHINE_NATS = ("127.0.0.1", 4222)
T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def _open(host: str, port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PrivateNats:
    """A nats-server of our own (JetStream, file storage), to stop and start again."""

    def __init__(self, store: Path) -> None:
        binary = shutil.which("nats-server") or "/usr/sbin/nats-server"
        if not Path(binary).exists():
            pytest.skip("no nats-server binary")
        self.binary, self.store, self.port = binary, store, free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "-a", "127.0.0.1", "-p", str(self.port), "-js", "-sd", str(self.store)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not _open("127.0.0.1", self.port):
            assert self.process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        self.process = None


@pytest.fixture(scope="session")
def nats_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if _open(*MACHINE_NATS):
        yield f"nats://{MACHINE_NATS[0]}:{MACHINE_NATS[1]}"
        return
    server = PrivateNats(tmp_path_factory.mktemp("nats"))
    server.start()
    yield server.url
    server.stop()


@dataclass(frozen=True)
class Bus:
    url: str
    section: NatsSection

    @property
    def subject(self) -> str:
        return subject_publish(self.section)


async def stream_delete(url: str, stream: str) -> None:
    client = await nats.connect(url)
    try:
        await client.jetstream().delete_stream(stream)
    except NotFoundError:
        pass
    finally:
        await client.close()


def bus_for(url: str, config: DecayConfig, swap: Callable[[DecayConfig], DecayConfig],
            settings: Any, **changes: Any) -> Bus:
    tag = secrets.token_hex(4)
    section = dataclasses.replace(config.nats, prefix=f"cortextest.{tag}",
                                  stream=f"CORTEX_TEST_{tag.upper()}", **changes)
    swap(dataclasses.replace(config, nats=section))
    settings.NATS_URL = url
    return Bus(url=url, section=section)


@pytest.fixture
def bus(nats_url: str, config: DecayConfig, swap_config: Callable[[DecayConfig], DecayConfig],
        settings: Any) -> Iterator[Bus]:
    """NATS on, with this test's own prefix and stream (deleted afterwards)."""
    made = bus_for(nats_url, config, swap_config, settings)
    yield made
    run(stream_delete(made.url, made.section.stream))


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The tasks the outbox queues (on commit), recorded instead of sent; the Retain Job is
    left out of these tests."""
    names: list[str] = []
    monkeypatch.setattr("memory.services.outbox.task_enqueue",
                        lambda name, **kwargs: names.append(name))
    monkeypatch.setattr("memory.services.observations.retain_enqueue",
                        lambda **kwargs: None)
    return names


def store(*texts: str) -> list[str]:
    """One transaction storing one fact observation per text; their ids, in order."""
    results = observation_submit_many(observations=[
        {"source": "test:nats", "category": "fact", "timestamp": "2026-11-20T12:00:00+00:00",
         "target_namespace": "world:concept",
         "payload_typed": {"subject": "nats", "text": text}} for text in texts])
    assert all(result.created for result in results)
    return [result.id for result in results]


async def consume(bus: Bus, durable: str, count: int) -> list[tuple[str, dict[str, Any]]]:
    """`count` messages fetched and acked by durable consumer `durable`, then one more fetch
    that must find nothing: (Nats-Msg-Id, body) each."""
    client = await nats.connect(bus.url)
    try:
        js = client.jetstream()
        subscription = await js.pull_subscribe(bus.subject, durable=durable,
                                               stream=bus.section.stream)
        got: list[tuple[str, dict[str, Any]]] = []
        while len(got) < count:
            for msg in await subscription.fetch(count - len(got), timeout=5):
                await msg.ack_sync()
                got.append(((msg.headers or {}).get("Nats-Msg-Id", ""), orjson.loads(msg.data)))
        with pytest.raises(nats.errors.TimeoutError):
            await subscription.fetch(1, timeout=0.5)
        return got
    finally:
        await client.close()
