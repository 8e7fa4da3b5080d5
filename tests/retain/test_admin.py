"""The review queues in the admin: lists, evidence pages, and actions that call services."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from memory.models import Conflict, Entity, EntityMerge, ReviewItem
from tests.retain.conftest import retain
from tests.retain.factories import T0, commit, fact, instruction, submit

pytestmark = pytest.mark.usefixtures("synced")


def _act(client: Client, model: str, action: str, pk: int, **extra: str) -> None:
    response = client.post(reverse(f"admin:memory_{model}_changelist"),
                           {"action": action, "_selected_action": [str(pk)], **extra},
                           follow=True)
    assert response.status_code == 200


def test_the_dark_matter_queue_shows_the_evidence_and_accepts(admin_client: Client) -> None:
    (observation,) = submit(fact("Zorblax", "Zorblax glows in the dark", target="world:concept"))
    retain()
    item = ReviewItem.objects.get()
    listing = admin_client.get(reverse("admin:memory_reviewitem_changelist"))
    assert listing.status_code == 200 and b"Zorblax" in listing.content
    page = admin_client.get(reverse("admin:memory_reviewitem_change", args=[item.pk]))
    assert page.status_code == 200 and observation.encode() in page.content
    _act(admin_client, "reviewitem", "accept", item.pk)
    item.refresh_from_db()
    assert item.status == "accepted" and item.resolved_by == "admin"


def test_merging_from_the_queue_names_its_target(admin_client: Client) -> None:
    submit(fact("Zorblax", "Zorblax glows in the dark", target="world:concept"))
    retain()
    submit(commit("Alice Martin", "cortex", "feat"))
    retain()
    item = ReviewItem.objects.get()
    _act(admin_client, "reviewitem", "merge", item.pk)  # no target: refused, nothing done
    item.refresh_from_db()
    assert item.status == "open"
    _act(admin_client, "reviewitem", "merge", item.pk, into_key="world:project:cortex")
    item.refresh_from_db()
    assert item.status == "merged"
    assert Entity.objects.get(key="world:concept:zorblax").status == "merged"


def test_the_conflict_queue_resolves(admin_client: Client) -> None:
    submit(instruction("use uv", at=T0), instruction("use uv", "negative", at=T0 + timedelta(1)))
    retain()
    conflict = Conflict.objects.get()
    page = admin_client.get(reverse("admin:memory_conflict_change", args=[conflict.pk]))
    assert page.status_code == 200 and b"use uv" in page.content
    _act(admin_client, "conflict", "resolve_kept_both", conflict.pk)
    conflict.refresh_from_db()
    assert conflict.status == "kept_both"
    assert admin_client.get(reverse("admin:memory_fact_changelist")).status_code == 200


def test_a_wrong_merge_is_split_from_the_admin(admin_client: Client) -> None:
    submit(commit("Anya Petrova", "cortex", "feat: search", at=T0),
           commit("Petrova, Anya", "cortex", "fix: ranking bug", at=T0 + timedelta(hours=1)))
    retain(embed=True)
    merge = EntityMerge.objects.get()
    assert admin_client.get(reverse("admin:memory_entitymerge_changelist")).status_code == 200
    _act(admin_client, "entitymerge", "split", merge.pk)
    merge.refresh_from_db()
    assert merge.split_at is not None and merge.split_by == "admin"
    assert Entity.objects.get(key="world:person:petrova-anya").status == "active"
