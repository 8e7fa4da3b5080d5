"""The entity page: the compiled truth rendered, its versions and a diff between two, facts
and memories linked to their raw events, the neighbourhood with faded relations told apart."""

from __future__ import annotations

import re
from datetime import timedelta

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from memory.config import config_get
from memory.models import Entity, Relation
from memory.selectors.relations import WEIGHT_NOW, relation_with_weight
from memory.services.compiled_truth import compiled_truth_rebuild
from tests.console.conftest import NOW, Graph, entity, fact, memory, relation


def _page(client: Client, graph: Graph) -> str:
    response = client.get(f"/admin/memory/entity/{graph.cortex.pk}/change/")
    assert response.status_code == 200
    return response.content.decode()


def test_the_current_compiled_truth_is_rendered(operator: Client, graph: Graph) -> None:
    html = _page(operator, graph)
    assert "Version 2, compiled on" in html
    assert "<h1>Cortex</h1>" in html
    assert "<h2>Facts</h2>" in html
    assert "<li>uses <code>pnpm</code> <strong>always</strong></li>" in html
    assert "<blockquote><p>Compiled truth version 2.</p></blockquote>" in html
    assert "<p>A paragraph in two lines.</p>" in html
    assert "uses `npm`" not in html  # version 1 is not the one rendered


def test_versions_are_listed_and_two_are_diffed(operator: Client, graph: Graph) -> None:
    html = _page(operator, graph)
    diff_url = f"/admin/memory/entity/{graph.cortex.pk}/compiled-diff/"
    assert f'{diff_url}?old=1&amp;new=2' in html
    assert '<option value="1" selected>' in html  # old defaults to the previous version
    response = operator.get(diff_url, {"old": 1, "new": 2})
    assert response.status_code == 200
    table = response.content.decode()
    rows = re.findall(r'<tr class="diff-(\w+)">(.*?)</tr>', table, re.S)
    changed = [(tag, body) for tag, body in rows if tag != "equal"]
    # version 1's "- uses `npm`" became "- uses `pnpm` **always**"; the quote and the
    # paragraph were added; "written in Python" is the same in both
    assert any("uses `npm`" in body and "uses `pnpm` **always**" in body
               for _, body in changed)
    assert any("&gt; Compiled truth version 2." in body for _, body in changed)
    assert any("written in Python" in body for tag, body in rows if tag == "equal")


def test_a_missing_version_is_a_message_not_an_error(operator: Client, graph: Graph) -> None:
    response = operator.get(f"/admin/memory/entity/{graph.cortex.pk}/compiled-diff/",
                            {"old": 1, "new": 9})
    assert response.status_code == 200
    assert "No compiled-truth version 9" in response.content.decode()


def test_facts_and_memories_link_to_their_raw_events(operator: Client, graph: Graph) -> None:
    html = _page(operator, graph)
    for event_id in [*graph.fact.event_ids, graph.memory.event_id]:
        url = f"/admin/memory/memoryevent/{event_id}/change/"
        assert f'href="{url}"' in html
        assert operator.get(url).status_code == 200
    assert f'href="/admin/memory/fact/{graph.fact.pk}/change/"' in html
    memory_url = f"/admin/memory/memory/{graph.memory.pk}/change/"
    assert f'href="{memory_url}"' in html
    page = operator.get(memory_url).content.decode()
    assert f'href="/admin/memory/memoryevent/{graph.memory.event_id}/change/"' in page


def _weight(relation: Relation) -> float:
    row = relation_with_weight(now=NOW, queryset=Relation.objects.filter(pk=relation.pk))
    return float(getattr(row.get(), WEIGHT_NOW))


def test_the_neighbourhood_draws_a_faded_relation_dashed(operator: Client, graph: Graph) -> None:
    threshold = config_get().thresholds.relation_weight
    assert _weight(graph.visible) >= threshold > _weight(graph.faded)  # the fixture's premise
    svg = re.search(r'<svg[^>]*aria-label="neighbourhood".*?</svg>', _page(operator, graph),
                    re.S)
    assert svg is not None
    edges = re.findall(r'<path class="edge (\w+)"[^>]*stroke="([^"]+)"[^>]*'
                       r'stroke-dasharray="([^"]+)"><title>(.*?)</title>', svg.group(0))
    by_type = {title.split()[1]: (kind, stroke, dash) for kind, stroke, dash, title in edges}
    assert by_type["works_on"][0] == "visible" and by_type["works_on"][2] == "none"
    assert by_type["located_in"][0] == "faded" and by_type["located_in"][2] != "none"
    assert by_type["located_in"][1] != by_type["works_on"][1]
    for neighbour in (graph.anya, graph.lyon):
        assert f'href="/admin/memory/entity/{neighbour.pk}/change/"' in svg.group(0)


def test_the_page_costs_the_same_queries_however_much_it_holds(
        operator: Client, graph: Graph) -> None:
    def cost() -> int:
        with CaptureQueriesContext(connection) as queries:
            _page(operator, graph)
        return len(queries.captured_queries)

    few = cost()
    for i in range(12):
        fact(graph.cortex, f"claim number {i}", events=2)
        memory(f"memory number {i}", mentions=(graph.cortex,))
        relation(graph.cortex, entity(f"neighbour {i}"), "relates_to", at=NOW)
    assert cost() == few


def test_an_entity_with_nothing_yet_has_a_plain_page(operator: Client, graph: Graph) -> None:
    lone = entity("Lone")
    html = operator.get(f"/admin/memory/entity/{lone.pk}/change/").content.decode()
    assert "No compiled truth yet" in html
    assert "no relation" in html
    assert 'aria-label="neighbourhood"' not in html


def _text(html: str) -> str:
    """What a reader sees: the page without its drawings, scripts, styles and tags."""
    html = re.sub(r"<(svg|script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", html)


def test_the_entity_page_tells_one_truth_and_dates_the_compiled_one(
        operator: Client, graph: Graph) -> None:
    """Compiled 40 days ago, the truth held a strength the entity no longer has: the page
    gives the live one as now, and the compiled truth's own figures with their date."""
    compiled_at = NOW - timedelta(days=40)
    target = graph.cortex
    Entity.objects.filter(pk=target.pk).update(last_reinforced_at=compiled_at)
    target.refresh_from_db()
    compiled_truth_rebuild(key=target.key, now=compiled_at)
    then = target.base * 0.5 ** (0 / target.half_life_days)
    now = target.base * 0.5 ** (40 / target.half_life_days)  # computed here, not read back
    html = _page(operator, graph)
    text = _text(html)

    assert f"strength on {compiled_at:%Y-%m-%d %H:%M} UTC: {then:.3f}" in text
    assert f"Now: strength {now:.3f}" in text
    assert re.search(rf"Strength now:\s*</label>\s*<div class=\"readonly\">{now:.3f}", html)
    # every strength the page gives is now, or dated
    for match in re.finditer(r"(now: )?strength ([^:\d]{0,40}):?\s*\d\.\d{3}", text, flags=re.I):
        assert "now" in match.group(0).lower() or " on " in match.group(0), match.group(0)


def test_the_entity_page_is_read_not_edited_and_reads_as_words(
        operator: Client, graph: Graph) -> None:
    compiled_truth_rebuild(key=graph.cortex.key, now=NOW)
    html = _page(operator, graph)
    text = _text(html)
    assert "Change entity" not in html and 'name="_save"' not in html
    assert "<title>world:project:e" in html and "Entity: Cortex" in html
    assert not re.search(r"\d\.\d{5,}", text), "a raw float"
    assert not re.search(r"\w\((s|ies)\)", text), "fact(s), memory(ies)"
    assert "\\" not in text, "a markdown escape"
    # the raw events the compiled truth cites are links to them
    cited = re.findall(r"<code>([0-9A-HJKMNP-TV-Z]{26})</code>",
                       html.split('class="compiled-truth"')[1])
    assert cited
    for event_id in cited:
        assert (f'<a href="/admin/memory/memoryevent/{event_id}/change/"><code>{event_id}'
                "</code></a>") in html
    # so are the entities it names
    assert f'<a href="/admin/memory/entity/{graph.anya.pk}/change/"><code>{graph.anya.key}' \
        in html
