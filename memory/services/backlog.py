"""What was recorded and is not recallable yet: an event some analyzer has not read (the
producers' horizon), an observation the Retain Job has not retained, an entity or memory
without its vector. The workers of `cortex up` consolidate it as it comes; without them,
`cortex analyze` then `cortex retain`. A few indexed reads, no lock, no write."""

from __future__ import annotations

from memory.config import DecayConfig
from memory.retain.horizon import retain_horizon
from memory.selectors.observations import retain_waiting
from memory.services.embeddings import embedding_waiting


def consolidation_waiting(*, config: DecayConfig | None = None) -> bool:
    return retain_horizon() is not None or retain_waiting() or embedding_waiting(config=config)
