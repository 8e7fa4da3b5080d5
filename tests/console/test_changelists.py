"""Every list stays fast on a large graph: the same number of queries for 5 rows as for 45
(no query per row), and no COUNT over a whole table (only the paginator's capped count)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from memory.models import (
    Conflict,
    EntityTransition,
    Observation,
    ReviewItem,
    SleepCycleRun,
)
from memory.services.taxonomy import taxonomy_sync
from tests.console.conftest import NOW, compiled, entity, fact, memory, relation

LISTS = ["entity", "relation", "fact", "memory", "observation", "memoryevent",
         "compiledtruth", "reviewitem", "conflict", "sleepcyclerun", "entitytransition"]
MAX_QUERIES = 12


def _populate(start: int, stop: int) -> None:
    previous = None
    for i in range(start, stop):
        node = entity(f"node {i}")
        if previous is not None:
            relation(previous, node, "relates_to", at=NOW)
        held = fact(node, f"node {i} holds fact {i}")
        memory(f"memory about node {i}", mentions=(node,))
        compiled(node, f"# node {i}\n")
        observation = Observation.objects.create(
            dedup_key=f"obs{i}", source="test", timestamp=NOW, category="instruction",
            topic=f"topic {i}", target_namespace="world:project")
        ReviewItem.objects.create(observation=observation, schema_fit=0.1,
                                  created_at=NOW).entities.add(node)
        Conflict.objects.create(entity=node, existing=held, new=fact(node, f"not {i}"),
                                jaccard=0.5, created_at=NOW)
        run = SleepCycleRun.objects.create(as_of=NOW, trigger="beat", started_at=NOW,
                                           config_digest="d", counts={"entities_fell": 1})
        EntityTransition.objects.create(run=run, entity=node, direction="fell", before=0.4,
                                        after=0.3)
        previous = node


def _sql(client: Client, url: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return [q["sql"] for q in queries.captured_queries]


@pytest.mark.parametrize("name", LISTS)
def test_a_list_costs_the_same_queries_for_many_rows(
        name: str, operator: Client,
        django_assert_max_num_queries: Callable[..., Any]) -> None:
    taxonomy_sync()
    url = f"/admin/memory/{name}/"
    _populate(0, 5)
    few = _sql(operator, url)
    _populate(5, 45)
    with django_assert_max_num_queries(MAX_QUERIES):
        many = _sql(operator, url)
    assert len(many) == len(few), "\n".join(many)
    counts = [sql for sql in many if "COUNT(" in sql.upper()]
    assert counts, "the paginator counts"
    assert all("LIMIT" in sql.upper() for sql in counts), counts
