"""The console's recall box: it finds over the whole graph and reinforces nothing."""

from __future__ import annotations

import re

from django.test import Client

from memory.models import Entity, Memory
from tests.console.conftest import Graph

URL = "/admin/memory/entity/recall/"


def _hits(html: str) -> list[str]:
    table = re.search(r'<table id="recall-hits">(.*?)</table>', html, re.S)
    return re.findall(r'<td><a href="([^"]+)">', table.group(1)) if table else []


def test_it_finds_an_entity_and_does_not_reinforce(operator: Client, graph: Graph) -> None:
    before = {e.pk: e.retrieval_count for e in Entity.objects.all()}
    response = operator.get(URL, {"q": "Kowalzki"})  # misspelled
    assert response.status_code == 200
    html = response.content.decode()
    assert _hits(html)[0] == f"/admin/memory/entity/{graph.anya.pk}/change/"
    assert "nothing is reinforced" in html
    # a neighbour brought by a relation lists that relation
    assert "Anya Kowalski -works_on-&gt; Cortex" in html
    lyon = f"/admin/memory/entity/{graph.lyon.pk}/change/"
    assert lyon not in _hits(html)  # only through a faded relation
    faded = operator.get(URL, {"q": "Kowalzki", "include_faded": "1"}).content.decode()
    assert lyon in _hits(faded)
    assert {e.pk: e.retrieval_count for e in Entity.objects.all()} == before


def test_unit_memory_lists_memories_with_their_raw_events(operator: Client,
                                                         graph: Graph) -> None:
    html = operator.get(URL, {"q": "demo moved to Lyon", "unit": "memory"}).content.decode()
    assert f"/admin/memory/memory/{graph.memory.pk}/change/" in _hits(html)
    assert f'href="/admin/memory/memoryevent/{graph.memory.event_id}/change/"' in html
    assert Memory.objects.get(pk=graph.memory.pk).retrieval_count == 0


def test_the_box_is_linked_from_the_entity_list(operator: Client, graph: Graph) -> None:
    html = operator.get("/admin/memory/entity/").content.decode()
    assert f'href="{URL}"' in html


def test_an_empty_query_shows_the_form_only(operator: Client, graph: Graph) -> None:
    html = operator.get(URL).content.decode()
    assert 'id="recall-form"' in html and 'id="recall-hits"' not in html
