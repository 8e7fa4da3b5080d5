"""Per-agent rate limits on the REST API: the window counter of memory.rate_limits."""

from __future__ import annotations

import time
from typing import Any

from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from memory.api.permissions import request_agent
from memory.rate_limits import agent_rate_spend


class AgentRateThrottle(BaseThrottle):
    """Each agent gets its own `rate_limit`, or the `agent` rate of DEFAULT_THROTTLE_RATES.
    Sessions (the operator in the admin) are not throttled."""

    scope = "agent"

    def __init__(self) -> None:
        self.retry_after: float | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        agent = request_agent(request)
        if agent is None:
            return True
        rate = agent.rate_limit or api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        if not rate:
            return True
        self.retry_after = agent_rate_spend(agent_id=agent.pk, rate=str(rate), now=time.time())
        return self.retry_after is None

    def wait(self) -> float | None:
        return self.retry_after
