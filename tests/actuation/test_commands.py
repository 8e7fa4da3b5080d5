"""`cortex actuate repo add / detect / list / show / approve / reject`."""

from __future__ import annotations

import json
from io import StringIO
from unittest import mock

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from actuation.models import Proposal, TargetRepository
from actuation.services import proposals as proposal_services
from memory.config import config_get
from memory.models import MemoryEvent
from tests.actuation import graphs
from tests.actuation.helpers import NOW, detected, detected_grants, operator
from tests.actuation.repos import Repo


def _run(*args: str) -> str:
    out = StringIO()
    call_command("actuate", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_repo_add(repo: Repo) -> None:
    _run("repo", "add", "shop", str(repo.clone), "--remote", "origin", "--branch", "main")
    target = TargetRepository.objects.get(name="shop")
    assert (target.path, target.remote, target.default_branch) == (str(repo.clone), "origin",
                                                                   "main")
    with pytest.raises(CommandError):
        _run("repo", "add", "nope", str(repo.clone.parent / "missing"))


@pytest.mark.django_db
def test_detect_dry_run_then_for_real(target: TargetRepository) -> None:
    graphs.submit(graphs.tool_errors(sessions=config_get().actuation.claude_md.min_sessions))
    now = NOW.isoformat()
    dry = json.loads(_run("detect", "--dry-run", "--json", "--now", now))
    assert [d["diff_type"] for d in dry["drafts"]] == ["claude_md"] and dry["proposals"] == []
    assert not Proposal.objects.exists()
    real = json.loads(_run("detect", "--json", "--now", now))
    assert len(real["proposals"]) == 1 and Proposal.objects.count() == 1


@pytest.mark.django_db
def test_list_show_approve_reject(target: TargetRepository) -> None:
    operator("alice")
    first = detected()
    second = detected_grants()
    listed = json.loads(_run("list", "--json"))
    assert {p["id"] for p in listed} == {first.pk, second.pk}
    assert "Known pitfalls" in _run("show", str(first.pk))
    assert json.loads(_run("show", str(first.pk), "--json"))["diff"] == first.diff
    with mock.patch.object(proposal_services, "task_enqueue"):
        assert "approved by alice" in _run("approve", str(first.pk))  # the local operator
    assert "rejected by alice" in _run("reject", str(second.pk), "--reason", "noise",
                                       "--by", "alice")
    with pytest.raises(CommandError, match="cannot be approved"):
        _run("approve", str(second.pk))
    assert MemoryEvent.objects.filter(source="operator:alice", type="decision").count() == 2


@pytest.mark.django_db
def test_show_lists_the_items_and_approve_drops_some(target: TargetRepository) -> None:
    operator("alice")
    proposal = detected_grants("Bash(npm test:*)", "Bash(ls:*)")
    shown = _run("show", str(proposal.pk))
    assert "Bash(ls:*): 3 sessions, last 2026-03-0" in shown
    assert "Bash(npm test:*): 3 sessions" in shown
    with mock.patch.object(proposal_services, "task_enqueue"):
        _run("approve", str(proposal.pk), "--by", "alice", "--drop", "Bash(ls:*)")
    proposal.refresh_from_db()
    assert proposal.state == "approved" and "Bash(ls:*)" not in proposal.diff


@pytest.mark.django_db
def test_an_empty_queue_says_so_and_what_fills_it(repo: Repo) -> None:
    assert _run("list") == ("No proposals: Cortex proposes changes to the repositories you add "
                            "(cortex actuate repo add NAME PATH).\n")
    _run("repo", "add", "shop", str(repo.clone))
    assert _run("list", "--state", "applied").startswith("No applied proposals (")
    assert json.loads(_run("list", "--json")) == []
    with pytest.raises(CommandError, match="invalid choice: 'aplied'"):
        _run("list", "--state", "aplied")


@pytest.mark.django_db
@pytest.mark.parametrize("decision", [("approve", "999"), ("reject", "999", "--reason", "no")])
def test_a_missing_proposal_is_said_before_a_missing_operator(decision: tuple[str, ...]) -> None:
    with pytest.raises(CommandError, match="No proposal 999"):
        _run(*decision)
