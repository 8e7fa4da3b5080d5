"""Notes remembered as an agent posts them, consolidated and embedded, for recall's tests."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from insight.services.analysis import analysis_drain
from memory.services.memories import memories_remember
from memory.services.memories_embed import memory_embed_pending
from memory.services.retain import retain_drain
from memory.services.taxonomy import taxonomy_sync


def notes_remember(texts: Sequence[str], *, at: datetime) -> None:
    """Each text a memory of `api:lyra` (source_id `note-<i>`), analysed, retained and
    embedded."""
    taxonomy_sync()
    memories_remember(source="api:lyra", memories=[
        {"text": text, "source_id": f"note-{i}", "occurred_at": at.isoformat()}
        for i, text in enumerate(texts)])
    analysis_drain()
    retain_drain(embed=False)
    while memory_embed_pending(limit=64):
        pass
