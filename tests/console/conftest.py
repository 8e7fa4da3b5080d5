"""A small graph for the console, built directly (not through the code under test), and a
logged-in staff client."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from memory import clock
from memory.models import (
    CompiledTruth,
    Entity,
    EntityAlias,
    Fact,
    Memory,
    MemoryEvent,
    MemoryMention,
    Relation,
)
from memory.retain.text import normalize
from memory.services.entities import entity_create
from memory.services.taxonomy import namespace_resolve, taxonomy_sync

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
HOSTILE = '<script>alert("x")</script>'
_n = itertools.count(1)


@pytest.fixture(autouse=True)
def _frozen_clock() -> object:
    with clock.frozen(NOW):
        yield


@pytest.fixture
def operator(db: None) -> Client:
    user = get_user_model().objects.create_user("op", "op@example.org", "pw", is_staff=True,
                                                is_superuser=True)
    client = Client()
    client.force_login(user)
    return client


def entity(name: str, *, path: str = "world:project", aliases: tuple[str, ...] = (),
           at: datetime = NOW) -> Entity:
    """An entity with its alias rows, as the Retain Job writes them."""
    namespace = namespace_resolve(path=path)
    created = entity_create(namespace=namespace, slug=f"e{next(_n)}", display_name=name,
                            aliases=aliases, now=at)
    for alias in {normalize(name), *map(normalize, aliases)}:
        EntityAlias.objects.get_or_create(namespace=namespace, normalized=alias,
                                          defaults={"entity": created})
    return created


def event(text: str, *, at: datetime = NOW) -> MemoryEvent:
    return MemoryEvent.objects.create(source="test", source_id=f"s{next(_n)}", occurred_at=at,
                                      type="message", subtype="user", payload={"text": text})


def fact(target: Entity, claim: str, *, events: int = 1) -> Fact:
    ids = [event(claim).pk for _ in range(events)]
    return Fact.objects.create(entity=target, claim=claim, lemma_key=claim.lower(),
                               lemmas=claim.lower().split(), polarity=1, first_seen_at=NOW,
                               last_seen_at=NOW, event_ids=ids)


def memory(text: str, *, mentions: tuple[Entity, ...] = ()) -> Memory:
    raw = event(text)
    namespace = namespace_resolve(path="world:project")
    stored = Memory.objects.create(
        event=raw, source="api:lyra", source_id=raw.source_id, text=text, occurred_at=NOW,
        namespace=namespace, memory_type=namespace.memory_type, referent=namespace.referent,
        base=1.0, half_life_days=30.0, last_reinforced_at=NOW)
    for target in mentions:
        MemoryMention.objects.create(memory=stored, entity=target, role="subject")
    return stored


def relation(source: Entity, target: Entity, relation_type: str, *, at: datetime) -> Relation:
    return Relation.objects.create(source=source, target=target, relation_type=relation_type,
                                   relation_class="normal", last_reinforced_at=at,
                                   created_at=at)


def compiled(target: Entity, *documents: str) -> list[CompiledTruth]:
    """Versions 1..n of `target`'s compiled truth, the last one current."""
    versions: list[CompiledTruth] = []
    successor = None
    for number in range(len(documents), 0, -1):
        successor = CompiledTruth.objects.create(
            entity=target, version=number, markdown=documents[number - 1],
            as_of=NOW - timedelta(days=len(documents) - number), strength=0.8,
            trigger="sleep_cycle", reasons=["facts"], superseded_by=successor)
        versions.insert(0, successor)
    return versions


@dataclass
class Graph:
    cortex: Entity
    anya: Entity
    lyon: Entity
    visible: Relation
    faded: Relation
    fact: Fact
    memory: Memory
    versions: list[CompiledTruth]


V1 = "# Cortex\n\n## Facts\n\n- uses `npm`\n- written in Python\n"
V2 = ("# Cortex\n\n> Compiled truth version 2.\n\n## Facts\n\n- uses `pnpm` **always**\n"
      "- written in Python\n\nA paragraph\nin two lines.\n")


@pytest.fixture
def graph(db: None) -> Graph:
    taxonomy_sync()
    cortex = entity("Cortex", path="world:project")
    anya = entity("Anya Kowalski", path="world:person", aliases=("anya",))
    lyon = entity("Lyon", path="world:place")
    visible = relation(anya, cortex, "works_on", at=NOW - timedelta(days=1))
    faded = relation(cortex, lyon, "located_in", at=NOW - timedelta(days=400))
    return Graph(cortex=cortex, anya=anya, lyon=lyon, visible=visible, faded=faded,
                 fact=fact(cortex, "Cortex uses pnpm", events=2),
                 memory=memory("Anya moved the Cortex demo to Lyon.", mentions=(cortex,)),
                 versions=compiled(cortex, V1, V2))
