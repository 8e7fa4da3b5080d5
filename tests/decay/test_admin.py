"""The admin: strength now (not the stored value), the curve, relations, tree, runs."""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from memory import clock
from memory.models import Entity, SleepCycleRun
from memory.services.relations import relation_reinforce
from memory.services.sleep_cycle import sleep_cycle_run
from memory.services.taxonomy import taxonomy_sync
from tests.decay import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def graph() -> dict[str, Any]:
    taxonomy_sync()
    now = clock.now()
    project = factories.entity(now=now - timedelta(days=45), path="world:project",
                               display_name="cortex")  # 0.25 now
    fresh = factories.entity(now=now, path="world:project", display_name="fresh")
    Entity.objects.filter(pk=project.pk).update(strength=0.99)  # a stale stored value
    relation_reinforce(edges=[(project.pk, fresh.pk, "mentions")], now=now - timedelta(days=30))
    relation_reinforce(edges=[(fresh.pk, project.pk, "uses")], now=now)
    return {"project": project, "fresh": fresh}


def test_entity_list_shows_strength_evaluated_now(admin_client: Client, graph: Any) -> None:
    url = reverse("admin:memory_entity_changelist")
    page = admin_client.get(url).content.decode()
    assert "0.2500" in page and "0.9900" not in page
    ordered = admin_client.get(url, {"o": "3"}).content.decode()  # by strength now, ascending
    assert ordered.index("cortex") < ordered.index("fresh")
    namespace = graph["project"].namespace.parent_id  # `world`: the whole subtree
    assert "cortex" in admin_client.get(url, {"namespace": namespace}).content.decode()


def test_entity_page_plots_the_curve_and_the_crossing(admin_client: Client, graph: Any) -> None:
    fresh = graph["fresh"]
    page = admin_client.get(reverse("admin:memory_entity_change", args=[fresh.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert "<svg" in html and "<polyline" in html and "threshold 0.35" in html
    crossing = fresh.last_reinforced_at + timedelta(days=45 * math.log2(0.5 / 0.35))
    assert f"will cross 0.35 on {crossing:%Y-%m-%d}" in html
    assert Entity.objects.get(pk=fresh.pk).retrieval_count == 0  # browsing is not a recall


def test_relation_list_shows_weight_now_and_visibility(admin_client: Client, graph: Any) -> None:
    url = reverse("admin:memory_relation_changelist")
    html = admin_client.get(url).content.decode()
    assert "0.0138" in html  # weak, 30 days: exp(-30/7)
    faded = admin_client.get(url, {"visible": "no"}).content.decode()
    assert "mentions" in faded and ">uses<" not in faded


def test_namespace_tree_and_runs_are_listed(admin_client: Client, graph: Any) -> None:
    tree = admin_client.get(reverse("admin:memory_namespace_changelist")).content.decode()
    assert "agent:claude-code:rc" in tree
    sleep_cycle_run()
    runs = admin_client.get(reverse("admin:memory_sleepcyclerun_changelist"))
    assert "Run the sleep cycle now" in runs.content.decode()
    run = SleepCycleRun.objects.get()
    detail = admin_client.get(reverse("admin:memory_sleepcyclerun_change", args=[run.pk]))
    assert "entities_evaluated 2" in detail.content.decode()


def test_run_now_queues_the_sleep_cycle_after_commit(
    admin_client: Client, graph: Any, django_capture_on_commit_callbacks: Any,
) -> None:
    from cortex_site.celery import app

    with django_capture_on_commit_callbacks() as callbacks:
        response = admin_client.post(reverse("admin:memory_sleepcyclerun_run_now"))
    assert response.status_code == 302 and len(callbacks) == 1
    assert not SleepCycleRun.objects.exists()
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        callbacks[0]()
    finally:
        app.conf.task_always_eager = eager
    assert SleepCycleRun.objects.get().trigger == "admin"
