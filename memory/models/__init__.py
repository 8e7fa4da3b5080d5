from memory.models.agents import Agent, Scope  # noqa: F401
from memory.models.events import EventIdempotencyKey, MemoryEvent  # noqa: F401
