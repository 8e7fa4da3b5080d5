"""Per-agent rate limits: a fixed-window counter in Redis, one key per agent and window,
spent by every request of the agent whatever the way in (the REST API's throttle, the MCP
endpoint), so one budget covers both."""

from __future__ import annotations

import logging
from functools import cache

import redis
from django.conf import settings

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
logger = logging.getLogger(__name__)


@cache
def _redis() -> redis.Redis:
    # Its own client: one round trip per request (INCR and EXPIRE pipelined).
    return redis.Redis.from_url(settings.REDIS_URL)


def rate_parse(rate: str) -> tuple[int, int]:
    """'1200/min' -> (1200, 60)."""
    count, period = rate.split("/")
    return int(count), _PERIODS[period[0]]


def window_count(*, key: str, period: int) -> int:
    """Count one request in the current window of `key`; the window's key expires with it."""
    pipe = _redis().pipeline(transaction=False)
    pipe.incr(key)
    pipe.expire(key, period + 1)
    count, _ = pipe.execute()
    return int(count)


def agent_rate_spend(*, agent_id: int, rate: str, now: float) -> float | None:
    """Count one request of the agent under `rate` ('1200/min'); None when it is within the
    rate (or cannot be counted: Redis unreachable), else the seconds until the window ends."""
    limit, period = rate_parse(rate)
    window = int(now // period)
    key = f"cortex:throttle:agent:{agent_id}:{period}:{window}"
    try:
        count = window_count(key=key, period=period)
    except redis.RedisError as error:
        # A limit is a guard, not the request's purpose: with Redis down or slow, the
        # agent's memories are still taken (a 500 would lose them), and the log says why.
        logger.warning("rate limit of agent %s not counted: Redis %s", agent_id,
                       type(error).__name__)
        return None
    if count <= limit:
        return None
    return (window + 1) * period - now
