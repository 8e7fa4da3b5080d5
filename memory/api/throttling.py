"""Per-agent rate limits: a fixed-window counter in Redis, one key per agent and window."""

from __future__ import annotations

import time
from functools import cache
from typing import Any

import redis
from django.conf import settings
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from memory.api.permissions import request_agent

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


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


class AgentRateThrottle(BaseThrottle):
    """Each agent gets its own `rate_limit`, or the `agent` rate of DEFAULT_THROTTLE_RATES.
    Sessions (the operator in the admin) are not throttled."""

    scope = "agent"

    def __init__(self) -> None:
        self.retry_after: float | None = None

    def _rate(self, agent_rate: str) -> tuple[int, int] | None:
        rate = agent_rate or api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        return rate_parse(str(rate)) if rate else None

    def allow_request(self, request: Request, view: Any) -> bool:
        agent = request_agent(request)
        if agent is None:
            return True
        rate = self._rate(agent.rate_limit)
        if rate is None:
            return True
        limit, period = rate
        now = time.time()
        window = int(now // period)
        key = f"cortex:throttle:agent:{agent.pk}:{period}:{window}"
        if window_count(key=key, period=period) <= limit:
            return True
        self.retry_after = (window + 1) * period - now
        return False

    def wait(self) -> float | None:
        return self.retry_after
