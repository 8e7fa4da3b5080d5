"""`cortex recall` is the operator looking: it changes no strength unless --reinforce (then
each hit once), and its numbers say what they are. An agent's recall still reinforces.
Finding nothing while something recorded is not consolidated yet, `cortex recall` and
`cortex context` say so, and what consolidates it."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from memory.models import Entity, EntityAlias
from memory.retain.text import normalize
from memory.services.agents import agent_create
from memory.services.entities import entity_create
from memory.services.memories import memories_remember
from memory.services.taxonomy import namespace_resolve, taxonomy_sync

pytestmark = pytest.mark.django_db

STATE = ("key", "retrieval_count", "last_reinforced_at", "strength", "strength_evaluated_at")


@pytest.fixture
def graph() -> None:
    taxonomy_sync()
    for path, slug, name in (("world:person", "anya-kowalski", "Anya Kowalski"),
                             ("world:project", "web-dashboard", "web-dashboard"),
                             ("world:place", "lisbon", "Lisbon")):
        namespace = namespace_resolve(path=path)
        entity_create(namespace=namespace, slug=slug, display_name=name)
        EntityAlias.objects.create(namespace=namespace, normalized=normalize(name),
                                   entity=Entity.objects.get(slug=slug))


def _state() -> set[tuple[object, ...]]:
    return set(Entity.objects.values_list(*STATE))


def _recall(*args: str) -> str:
    out = StringIO()
    call_command("recall", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_a_recall_typed_by_the_operator_changes_no_strength(graph: None) -> None:
    before = _state()
    output = _recall("Anya", "Kowalski")
    assert "world:person:anya-kowalski" in output
    assert _state() == before
    _recall("web-dashboard", "--unit", "memory")
    assert _state() == before


def test_with_reinforce_each_hit_is_reinforced_once(graph: None) -> None:
    before = dict(Entity.objects.values_list("key", "retrieval_count"))
    output = _recall("Anya", "Kowalski", "--reinforce")
    hits = re.findall(r"^\s*\d+\. (\S+)  score", output, flags=re.MULTILINE)
    assert "world:person:anya-kowalski" in hits
    after = dict(Entity.objects.values_list("key", "retrieval_count"))
    assert after == {key: count + (1 if key in hits else 0) for key, count in before.items()}


def test_the_numbers_are_labelled(graph: None) -> None:
    line = next(line for line in _recall("Anya", "Kowalski").splitlines()
                if "anya-kowalski" in line)
    assert re.search(r"score \d\.\d{3}  strength \d\.\d{2}$", line), line


def test_an_agents_recall_over_the_api_still_reinforces(graph: None) -> None:
    _, token = agent_create(name="reader", scopes=["recall:read"])
    client = APIClient(HTTP_AUTHORIZATION=f"Token {token}")
    response = client.get("/api/recall/", {"q": "Anya Kowalski"})
    assert response.status_code == 200
    assert response.json()["reinforced"] >= 1
    assert Entity.objects.get(slug="anya-kowalski").retrieval_count == 1


def test_nothing_recalled_when_nothing_waits_to_be_consolidated() -> None:
    assert _recall("lisbon").strip() == "nothing recalled"


def test_nothing_recalled_yet_says_what_consolidates_what_waits() -> None:
    memories_remember(source="operator:test", memories=[{"text": "we met in Lisbon"}],
                      batch=False, default_actor="test")  # an event no analyzer has read
    output = _recall("lisbon", "--unit", "memory")
    assert output.startswith("nothing recalled yet: some of what was recorded is not "
                             "consolidated")
    assert "`cortex up`" in output and "`cortex analyze` then `cortex retain`" in output


def _context(*args: str) -> str:
    out = StringIO()
    call_command("context", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_an_empty_context_says_so_and_whether_something_waits() -> None:
    assert _context("lisbon").strip() == "(nothing to inject)"
    memories_remember(source="operator:test", memories=[{"text": "we met in Lisbon"}],
                      batch=False, default_actor="test")
    assert _context("lisbon").startswith("(nothing to inject yet: some of what was recorded "
                                         "is not consolidated")
