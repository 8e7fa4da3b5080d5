"""Publishing outbox items on JetStream (docs/nats.md): in order, each ack awaited before the
next is sent, `Nats-Msg-Id` = the observation id (JetStream drops a repeat inside its
duplicate window, so a drain that dies between the ack and the delete publishes nothing
twice)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from types import TracebackType

import orjson
from django.conf import settings
from nats.aio.client import Client
from nats.js import JetStreamContext

from memory.config import NatsSection, config_get
from memory.nats.connection import nats_connect, stream_ensure, subject_publish
from memory.selectors.outbox import OutboxItem

logger = logging.getLogger(__name__)


class JetStreamPublisher:
    """A callable for `outbox_drain(publish=...)`: connects on first use, answers how many
    items, from the first, were acked. Use it as a context manager (closes the connection)."""

    def __init__(self, *, url: str, section: NatsSection) -> None:
        self._url = url
        self._section = section
        self._loop = asyncio.new_event_loop()
        self._client: Client | None = None
        self._js: JetStreamContext | None = None

    def __enter__(self) -> JetStreamPublisher:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._client is not None and not self._client.is_closed:
            self._loop.run_until_complete(self._client.close())
        self._loop.close()

    def __call__(self, items: Sequence[OutboxItem]) -> int:
        return self._loop.run_until_complete(self._publish(items))

    async def _jetstream(self) -> JetStreamContext:
        if self._js is None or self._client is None or not self._client.is_connected:
            self._client = await nats_connect(url=self._url, section=self._section,
                                              name="cortex-outbox")
            self._js = self._client.jetstream(timeout=self._section.publish_timeout_seconds)
            await stream_ensure(self._js, self._section)
        return self._js

    async def _publish(self, items: Sequence[OutboxItem]) -> int:
        subject = subject_publish(self._section)
        try:
            js = await self._jetstream()
            for count, item in enumerate(items):
                try:
                    await js.publish(subject, orjson.dumps(item.body),
                                     stream=self._section.stream,
                                     headers={"Nats-Msg-Id": item.observation_id})
                except Exception:
                    logger.warning("nats: publishing observation %s failed; it waits in the "
                                   "outbox", item.observation_id, exc_info=True)
                    return count
        except Exception as error:  # NATS away: every row stays for the next drain
            logger.warning("nats: unreachable (%s); the outbox waits", type(error).__name__)
            return 0
        return len(items)


def observation_publisher() -> JetStreamPublisher:
    return JetStreamPublisher(url=settings.NATS_URL, section=config_get().nats)
