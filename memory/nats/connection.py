"""Connecting to NATS (NATS_URL) and the JetStream stream of the observations; the subjects
under the configured prefix (docs/nats.md)."""

from __future__ import annotations

import logging

import nats
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.api import StorageType, StreamConfig
from nats.js.errors import NotFoundError

from memory.config import NatsSection

logger = logging.getLogger(__name__)

SECONDS_PER_DAY = 86400


def subject_publish(section: NatsSection) -> str:
    return f"{section.prefix}.memory.observations.publish"


def subject_query(section: NatsSection, name: str) -> str:
    return f"{section.prefix}.memory.query.{name}"


async def _logged(error: Exception) -> None:
    logger.warning("nats: %s: %s", type(error).__name__, error)


async def _quiet(error: Exception) -> None:  # the caller reports the failure once
    logger.debug("nats: %s: %s", type(error).__name__, error)


async def nats_connect(*, url: str, section: NatsSection, name: str,
                       keep_trying: bool = False) -> Client:
    """A connection; `keep_trying`: wait for the server as long as it takes and reconnect
    whenever it goes away (the responder), else fail fast (the outbox drain)."""
    client: Client = await nats.connect(
        url, name=name, connect_timeout=section.connect_timeout_seconds,
        allow_reconnect=keep_trying, max_reconnect_attempts=-1 if keep_trying else 1,
        reconnect_time_wait=2 if keep_trying else 0.1,
        error_cb=_logged if keep_trying else _quiet)
    return client


async def stream_ensure(js: JetStreamContext, section: NatsSection) -> None:
    """The observations' stream, added when missing (an existing one is left as it is)."""
    try:
        await js.stream_info(section.stream)
    except NotFoundError:
        await js.add_stream(StreamConfig(
            name=section.stream, subjects=[subject_publish(section)],
            storage=StorageType.FILE, duplicate_window=section.duplicate_window_seconds,
            max_age=section.max_age_days * SECONDS_PER_DAY))
