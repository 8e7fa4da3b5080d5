"""The NATS responder (`cortex nats`, started by `cortex up` when NATS_URL is set): answers
`<prefix>.memory.query.recall` and `.context` in a queue group (several responders share the
load), each request in a worker thread (Django's database access is synchronous), at most
`nats.responder_concurrency` at once. It waits for NATS as long as it takes and reconnects
whenever NATS goes away (docs/nats.md)."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor

import orjson
from django.db import connections
from nats.aio.msg import Msg

from memory.config import NatsSection
from memory.nats.connection import nats_connect, subject_query
from memory.nats.requests import QUERIES, bus_answer

logger = logging.getLogger(__name__)

STATUS_HEADER = "Cortex-Status"


def _header(msg: Msg, name: str) -> str | None:
    """A request header, whatever its case."""
    return next((value for key, value in (msg.headers or {}).items()
                 if key.lower() == name), None)


def _connections_close(executor: ThreadPoolExecutor, threads: int) -> None:
    """Close the database connection of every worker thread: one job per thread, each held
    at a barrier until all run, so that no thread takes two."""
    barrier = threading.Barrier(threads)

    def close() -> None:
        connections.close_all()
        barrier.wait(timeout=30)

    for job in [executor.submit(close) for _ in range(threads)]:
        job.result()


async def responder_run(*, url: str, section: NatsSection, stop: asyncio.Event,
                        on_ready: Callable[[list[str]], None] | None = None) -> None:
    """Answer requests until `stop` is set; then finish the requests in flight and return."""
    client = await nats_connect(url=url, section=section, name="cortex-responder",
                                keep_trying=True)
    loop = asyncio.get_running_loop()
    slots = asyncio.Semaphore(section.responder_concurrency)
    pending: set[asyncio.Task[None]] = set()
    with ThreadPoolExecutor(max_workers=section.responder_concurrency,
                            thread_name_prefix="cortex-nats") as executor:

        async def answer(query: str, msg: Msg) -> None:
            authorization = _header(msg, "authorization")
            async with slots:
                result = await loop.run_in_executor(
                    executor, lambda: bus_answer(query=query, data=msg.data,
                                                 authorization=authorization))
            if not msg.reply:
                return
            try:
                await client.publish(msg.reply, orjson.dumps(result.body),
                                     headers={STATUS_HEADER: str(result.status)})
            except Exception:  # the connection went away: the requester times out
                logger.warning("nats: could not reply to a %s request", query, exc_info=True)

        def receiver(query: str) -> Callable[[Msg], Awaitable[None]]:
            async def receive(msg: Msg) -> None:
                task = asyncio.create_task(answer(query, msg))
                pending.add(task)
                task.add_done_callback(pending.discard)
            return receive

        subjects = [subject_query(section, query) for query in QUERIES]
        subscriptions = [
            await client.subscribe(subject, queue=section.queue_group, cb=receiver(query))
            for query, subject in zip(QUERIES, subjects, strict=True)]
        await client.flush()
        if on_ready is not None:
            on_ready(subjects)
        await stop.wait()
        for subscription in subscriptions:  # no new request; those received are answered
            await subscription.drain()  # type: ignore[no-untyped-call]
        while pending:
            await asyncio.gather(*pending, return_exceptions=True)
        await loop.run_in_executor(None, _connections_close, executor,
                                   section.responder_concurrency)
    await client.drain()
