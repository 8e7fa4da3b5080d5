"""The approval queue in the admin: filters, the diff in colour, the evidence linked,
approve and reject calling the services, bulk actions, CSRF enforced."""

from __future__ import annotations

import re
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from actuation.models import Proposal, TargetRepository
from actuation.services import proposals as proposal_services
from memory.models import MemoryEvent
from tests.actuation.helpers import detected, detected_grants, operator
from tests.actuation.repos import Repo


@pytest.fixture(autouse=True)
def _no_queue() -> object:
    with mock.patch.object(proposal_services, "task_enqueue"):
        yield


def _client(csrf: bool = False) -> Client:
    operator("alice")
    client = Client(enforce_csrf_checks=csrf)
    client.login(username="alice", password="pw-alice")
    return client


def _token(client: Client, url: str) -> str:
    page = client.get(url).content.decode()
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert found
    return found.group(1)


@pytest.mark.django_db
def test_the_queue_lists_and_filters(target: TargetRepository) -> None:
    client = _client()
    proposal = detected()
    url = reverse("admin:actuation_proposal_changelist")
    title = escape(proposal.title)
    assert title in client.get(url).content.decode()
    for query in ("diff_type__exact=claude_md", "state__exact=proposed",
                  f"repository__id__exact={target.pk}"):
        assert title in client.get(f"{url}?{query}").content.decode()
    assert title not in client.get(f"{url}?state__exact=rejected").content.decode()


@pytest.mark.django_db
def test_the_page_shows_the_diff_in_colour_and_links_the_evidence(
        target: TargetRepository) -> None:
    client = _client()
    proposal = detected()
    page = client.get(reverse("admin:actuation_proposal_change", args=[proposal.pk]))
    html = page.content.decode()
    assert 'class="cortex-diff"' in html and "color:#116329" in html
    event = proposal.evidence["events"][0]
    assert reverse("admin:memory_memoryevent_change", args=[event]) in html
    entity = proposal.evidence["entities"][0]["id"]
    assert reverse("admin:memory_entity_change", args=[entity]) in html
    assert 'id="cortex-approve"' in html


@pytest.mark.django_db
def test_approve_without_a_csrf_token_is_refused(target: TargetRepository) -> None:
    client = _client(csrf=True)
    proposal = detected()
    url = reverse("admin:actuation_proposal_approve", args=[proposal.pk])
    assert client.post(url).status_code == 403
    proposal.refresh_from_db()
    assert proposal.state == "proposed"
    token = _token(client, reverse("admin:actuation_proposal_change", args=[proposal.pk]))
    assert client.post(url, {"csrfmiddlewaretoken": token}).status_code == 302
    proposal.refresh_from_db()
    assert proposal.state == "approved" and proposal.decided_by == "alice"
    assert MemoryEvent.objects.filter(source="operator:alice", type="decision").count() == 1


@pytest.mark.django_db
def test_reject_with_a_reason_from_the_page(target: TargetRepository) -> None:
    client = _client()
    proposal = detected()
    url = reverse("admin:actuation_proposal_reject", args=[proposal.pk])
    client.post(url, {"reason": ""})
    proposal.refresh_from_db()
    assert proposal.state == "proposed"
    client.post(url, {"reason": "not for this repo"})
    proposal.refresh_from_db()
    assert (proposal.state, proposal.reject_reason) == ("rejected", "not for this repo")


@pytest.mark.django_db
def test_bulk_actions(target: TargetRepository) -> None:
    client = _client()
    first = detected()
    second = detected_grants()
    url = reverse("admin:actuation_proposal_changelist")
    client.post(url, {"action": "reject_selected", "_selected_action": [second.pk],
                      "confirm": "yes", "reason": "known"})
    client.post(url, {"action": "approve_selected", "_selected_action": [first.pk, second.pk]})
    states = dict(Proposal.objects.values_list("pk", "state"))
    assert states == {first.pk: "approved", second.pk: "rejected"}


@pytest.mark.django_db
def test_a_user_who_is_not_staff_sees_nothing(target: TargetRepository) -> None:
    operator("bob", staff=False)
    proposal = detected()
    client = Client()
    client.login(username="bob", password="pw-bob")
    url = reverse("admin:actuation_proposal_approve", args=[proposal.pk])
    assert client.post(url).status_code == 302  # to the login page
    proposal.refresh_from_db()
    assert proposal.state == "proposed"


@pytest.mark.django_db
def test_the_operator_registers_a_repository(repo: Repo) -> None:
    client = _client()
    url = reverse("admin:actuation_targetrepository_add")
    form = {"name": "shop", "path": str(repo.clone), "default_branch": "main",
            "remote": "origin", "pr_mode": "branch", "memory_file": "", "active": "on"}
    bad = client.post(url, {**form, "default_branch": "nope"})
    assert bad.status_code == 200 and not TargetRepository.objects.exists()
    assert client.post(url, form).status_code == 302
    assert TargetRepository.objects.get().path == str(repo.clone)


@pytest.mark.django_db
def test_the_operator_drops_rules_on_the_page_then_approves(target: TargetRepository) -> None:
    client = _client(csrf=True)
    proposal = detected_grants("Bash(npm test:*)", "Bash(ls:*)", "Bash(git status:*)")
    page_url = reverse("admin:actuation_proposal_change", args=[proposal.pk])
    html = client.get(page_url).content.decode()
    assert 'name="drop" value="Bash(ls:*)"' in html and 'id="cortex-approve-kept"' in html
    token = _token(client, page_url)
    url = reverse("admin:actuation_proposal_approve", args=[proposal.pk])
    assert client.post(url, {"drop": ["Bash(ls:*)"]}).status_code == 403  # no CSRF token
    client.post(url, {"csrfmiddlewaretoken": token, "drop": ["Bash(ls:*)", "Bash(npm test:*)"]})
    proposal.refresh_from_db()
    assert proposal.state == "approved"
    assert '"Bash(ls:*)"' not in proposal.diff and '"Bash(git status:*)"' in proposal.diff
    assert set(proposal.items.filter(dropped=True).values_list("key", flat=True)) == {
        "Bash(ls:*)", "Bash(npm test:*)"}
    assert "dropped: never proposed again" in client.get(page_url).content.decode()
