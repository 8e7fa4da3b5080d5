"""The admin's home is the Cortex dashboard: layer counts (estimates for big tables, never a
full count of them), review queues, the last sleep cycles and the two plots."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from memory.models import (
    Conflict,
    Entity,
    EntityTransition,
    Observation,
    RelationTransition,
    ReviewItem,
    SleepCycleRun,
)
from memory.selectors.dashboard import layer_counts
from tests.console.conftest import NOW, Graph, entity, fact


def _home(client: Client) -> str:
    response = client.get("/admin/")
    assert response.status_code == 200
    return response.content.decode()


def _cells(html: str, table_id: str) -> list[list[str]]:
    table = re.search(rf'<table id="{table_id}">(.*?)</table>', html, re.S)
    assert table is not None
    return [[re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[hd]>(.*?)</t[hd]>", r,
                                                                   re.S)]
            for r in re.findall(r"<tr>(.*?)</tr>", table.group(1), re.S)]


def test_the_home_is_titled_cortex_and_counts_each_layer(operator: Client, graph: Graph) -> None:
    html = _home(operator)
    assert "<title>Cortex | Cortex</title>" in html
    assert '<a href="/admin/">Cortex</a>' in html  # the site header
    labels, counts = _cells(html, "layer-counts")
    found = dict(zip(labels, counts, strict=True))
    # the graph fixture: 3 entities, 2 relations, 1 fact, 1 memory, 2 compiled versions;
    # raw events: 2 for the fact, 1 for the memory
    assert found == {"raw events": "3", "observations": "0", "entities": "3",
                     "relations": "2", "facts": "1", "memories": "1",
                     "compiled-truth versions": "2"}
    assert 'action="/admin/memory/entity/recall/"' in html  # the recall box


def test_a_big_table_is_estimated_not_counted(graph: Graph) -> None:
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memory_entity")
    with CaptureQueriesContext(connection) as queries:
        counts = {c.label: c for c in layer_counts(cap=2)}
    assert counts["entities"].estimated and counts["entities"].count == 3
    assert not counts["facts"].estimated and counts["facts"].count == 1
    entity_counts = [q["sql"] for q in queries.captured_queries
                     if "COUNT(" in q["sql"].upper() and '"memory_entity"' in q["sql"]]
    assert entity_counts == []


def _observation(topic: str) -> Observation:
    return Observation.objects.create(dedup_key=topic, source="test", timestamp=NOW,
                                      category="instruction", topic=topic,
                                      target_namespace="world:project")


def test_what_waits_for_review_is_counted(operator: Client, graph: Graph) -> None:
    ReviewItem.objects.create(observation=_observation("a"), schema_fit=0.1, created_at=NOW)
    ReviewItem.objects.create(observation=_observation("b"), schema_fit=0.1, created_at=NOW,
                              status="accepted")
    newer = fact(graph.cortex, "Cortex uses npm")
    Conflict.objects.create(entity=graph.cortex, existing=graph.fact, new=newer, jaccard=0.5,
                            created_at=NOW)
    queues = re.search(r'<ul id="review-queues">(.*?)</ul>', _home(operator), re.S)
    assert queues is not None
    text = re.sub(r"<[^>]+>", "", queues.group(1))
    assert "dark matter (open review items): 1" in text
    assert "open conflicts: 1" in text
    assert "actuation proposals awaiting approval: 0" in text  # actuation's own contribution
    assert 'href="/admin/memory/reviewitem/?status__exact=open"' in queues.group(1)


def _run(days_ago: int, *, status: str = "succeeded") -> SleepCycleRun:
    at = NOW - timedelta(days=days_ago)
    return SleepCycleRun.objects.create(as_of=at, trigger="beat", status=status, started_at=at,
                                        finished_at=at + timedelta(seconds=2), duration_ms=2000,
                                        config_digest="d",
                                        counts={"entities_fell": 1, "entities_rose": 2})


def test_the_last_sleep_cycles_and_the_crossings_per_day(operator: Client, graph: Graph) -> None:
    recent, old = _run(3), _run(45)
    _run(1, status="failed")
    for e, direction in ((graph.cortex, "rose"), (graph.anya, "rose"), (graph.lyon, "fell")):
        EntityTransition.objects.create(run=recent, entity=e, direction=direction, before=0.3,
                                        after=0.4)
    EntityTransition.objects.create(run=old, entity=graph.cortex, direction="fell", before=0.4,
                                    after=0.3)
    RelationTransition.objects.create(run=recent, relation=graph.faded, direction="fell",
                                      before=0.21, after=0.19)
    html = _home(operator)
    rows = _cells(html, "sleep-cycles")
    assert rows[0][:3] == ["run", "as of", "status"]
    assert [r[2] for r in rows[1:]] == ["failed", "succeeded", "succeeded"]  # newest first
    assert rows[2][4] == "2000 ms" and "entities 2 rose, 1 fell" in rows[2][5]
    assert f'href="/admin/memory/sleepcyclerun/{recent.pk}/change/"' in html
    day = (NOW - timedelta(days=3)).date()
    entities = re.search(r'<figure id="crossings-entities">(.*?)</figure>', html, re.S)
    relations = re.search(r'<figure id="crossings-relations">(.*?)</figure>', html, re.S)
    assert entities is not None and relations is not None
    assert f"<title>{day}: 2 rose</title>" in entities.group(1)
    assert f"<title>{day}: 1 fell</title>" in entities.group(1)
    assert "In all: 2 rose, 1 fell." in entities.group(1)  # the 45-day-old run is out
    assert f"<title>{day}: 1 fell</title>" in relations.group(1)
    assert "In all: 0 rose, 1 fell." in relations.group(1)


def test_a_sleep_cycle_reads_in_one_line_not_its_internal_metrics(
        operator: Client, graph: Graph) -> None:
    at = NOW - timedelta(hours=1)
    SleepCycleRun.objects.create(
        as_of=at, trigger="demo", status="succeeded", started_at=at, duration_ms=510,
        config_digest="d",
        counts={"compiled_because_first": 78, "compiled_changed": 78, "compiled_evaluated": 78,
                "compiled_files": 73, "compiled_insert_ms": 218, "compiled_load_ms": 83,
                "compiled_written": 78, "drafts": 0, "entities_evaluated": 78,
                "entities_fell": 0, "entities_rose": 1, "entities_written": 78,
                "relations_evaluated": 97, "relations_fell": 2, "relations_rose": 0,
                "relations_written": 97})
    cell = _cells(_home(operator), "sleep-cycles")[1][5]
    assert cell == ("78 entities and 97 relations evaluated; entities 1 rose, 0 fell; "
                    "relations 0 rose, 2 fell; 78 compiled truths written")


def test_the_strength_histogram_of_the_stored_values(operator: Client, graph: Graph) -> None:
    for value in (0.07, 0.08, 0.52, 1.3):
        Entity.objects.filter(pk=entity(f"s{value}").pk).update(strength_consolidated=value)
    merged = entity("merged one")
    Entity.objects.filter(pk=merged.pk).update(strength_consolidated=0.07, status="merged")
    figure = re.search(r'<figure id="strength-histogram">(.*?)</figure>', _home(operator), re.S)
    assert figure is not None
    bars = dict(re.findall(r"<title>\[([0-9.]+), [0-9.]+[)+]: (\d+)</title>", figure.group(1)))
    assert len(bars) == 20
    assert bars["0.05"] == "2" and bars["0.50"] == "1" and bars["0.95"] == "1"
    assert sum(int(n) for n in bars.values()) == 4
    caption = re.sub(r"\s+", " ", figure.group(1))
    assert "strength_consolidated" in caption
    assert "3 never consolidated yet" in caption  # the graph fixture's three entities


def test_the_home_costs_a_bounded_number_of_queries(
        operator: Client, graph: Graph,
        django_assert_max_num_queries: Callable[..., Any]) -> None:
    for days_ago in range(10):
        _run(days_ago)
    # 20 for the dashboard, 9 for the health report (database size, tables, WAL, data
    # directory, four counts of what waits, the last sleep cycle): none grows with the graph
    with django_assert_max_num_queries(29):
        _home(operator)
