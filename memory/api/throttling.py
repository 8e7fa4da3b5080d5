"""Per-agent rate limits: a fixed-window counter in the cache (Redis), one key per agent."""

from __future__ import annotations

import time
from typing import Any

from django.core.cache import cache
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from memory.api.permissions import request_agent

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def rate_parse(rate: str) -> tuple[int, int]:
    """'1200/min' -> (1200, 60)."""
    count, period = rate.split("/")
    return int(count), _PERIODS[period[0]]


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
        key = f"throttle:agent:{agent.pk}:{period}:{window}"
        cache.add(key, 0, timeout=period + 1)
        try:
            count = cache.incr(key)
        except ValueError:  # the window's key expired between add and incr
            count = 1
            cache.set(key, count, timeout=period + 1)
        if count <= limit:
            return True
        self.retry_after = (window + 1) * period - now
        return False

    def wait(self) -> float | None:
        return self.retry_after
