"""One person, one entity (issue 25, item 3): a first name alone is the one known person of
that first name (and becomes an alias of it); with none or several known, it is a new entity.
Through the whole pipeline: memories posted, analyzed, retained."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from memory.models import Entity, MemoryMention
from memory.retain.names import first_name_of, given_name
from memory.services.agents import agent_create
from memory.services.taxonomy import taxonomy_sync
from tests.memories.conftest import T0, consolidate, post


@pytest.fixture
def lyra(db: None) -> APIClient:
    taxonomy_sync()
    cache.clear()
    _, token = agent_create(name="lyra", scopes=["memories:write", "memories:read"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client

MORNING = "Anya préfère faire les revues de code le matin"


def _remember(client: APIClient, *texts: str) -> None:
    for day, text in enumerate(texts):
        post(client, {"text": text, "occurred_at": (T0 + timedelta(days=day)).isoformat()})
        consolidate()


def _people() -> set[str]:
    return set(Entity.objects.filter(namespace__path="world:person")
               .values_list("display_name", flat=True))


def test_a_first_name_alone_and_a_full_name() -> None:
    assert given_name("Anya") == "anya" and given_name("Anya Petrova") == ""
    assert given_name("A.") == "" and given_name("R2D2") == ""
    assert first_name_of("anya petrova") == "anya" and first_name_of("anya") == ""


def test_a_first_name_alone_is_the_one_person_known_by_it(lyra: APIClient) -> None:
    _remember(lyra, "J'ai déjeuné avec Anya Petrova à Lyon.", MORNING)
    assert "Anya" not in _people()
    petrova = Entity.objects.get(display_name="Anya Petrova")
    assert "Anya" in petrova.aliases
    said = MemoryMention.objects.filter(memory__text=MORNING, role="person")
    assert list(said.values_list("entity__key", flat=True)) == [petrova.key]


def test_a_first_name_shared_by_two_people_is_someone_new(lyra: APIClient) -> None:
    _remember(lyra, "J'ai déjeuné avec Anya Petrova à Lyon.",
              "J'ai appelé Anya Smith pour le budget.", MORNING)
    assert {"Anya Petrova", "Anya Smith", "Anya"} <= _people()


def test_a_first_name_no_one_has_is_someone_new(lyra: APIClient) -> None:
    _remember(lyra, "J'ai déjeuné avec Boris Petrov à Lyon.", MORNING)
    assert {"Boris Petrov", "Anya"} <= _people()


LUNCH = "J'ai déjeuné avec Anya Petrova à Lyon."


def _person_of(text: str) -> str:
    said = MemoryMention.objects.filter(memory__text=text, role="person")
    return str(said.values_list("entity__key", flat=True).get())


def _one_anya() -> None:
    petrova = Entity.objects.get(namespace__path="world:person", display_name="Anya Petrova")
    assert "Anya" not in _people() and "Anya" in petrova.aliases
    assert _person_of(MORNING) == _person_of(LUNCH) == petrova.key


def test_a_full_name_said_later_is_the_person_first_known_by_its_first_name(
        lyra: APIClient) -> None:
    _remember(lyra, MORNING, LUNCH)
    _one_anya()


def test_both_orders_in_one_chunk_make_one_person(lyra: APIClient) -> None:
    for day, text in enumerate((MORNING, LUNCH)):
        post(lyra, {"text": text, "occurred_at": (T0 + timedelta(days=day)).isoformat()})
    consolidate()
    _one_anya()


def test_a_second_full_name_after_the_first_name_is_someone_else(lyra: APIClient) -> None:
    _remember(lyra, MORNING, LUNCH, "J'ai appelé Anya Smith pour le budget.")
    _one_anya()
    assert "Anya Smith" in _people()
    smith = Entity.objects.get(namespace__path="world:person", display_name="Anya Smith")
    assert "Anya" not in smith.aliases
