"""In a real browser (Playwright driving Debian's Chromium): an operator logs into the
admin, opens the approval queue, reads a diff, approves it, and the commit appears on the
remote branch."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from celery import current_app

from actuation.models import Proposal, TargetRepository
from tests.actuation.helpers import detected, operator
from tests.actuation.repos import Repo, run_git

CHROMIUM = "/usr/bin/chromium"

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM), reason="no Debian chromium")


@pytest.fixture
def eager_tasks() -> Iterator[None]:
    eager = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = True
    yield
    current_app.conf.task_always_eager = eager


@pytest.fixture
def page(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser.new_page()
        finally:
            browser.close()


@pytest.mark.django_db(transaction=True)
def test_an_operator_approves_in_the_admin_and_the_commit_lands(
        target: TargetRepository, repo: Repo, live_server: Any, eager_tasks: None,
        page: Any) -> None:
    assert os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] == "true"
    operator("alice")
    proposal = detected()

    page.goto(f"{live_server.url}/admin/login/?next=/admin/actuation/proposal/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-alice")
    page.click("input[type=submit]")
    page.wait_for_selector("#result_list")
    page.click(f"#result_list a[href$='/actuation/proposal/{proposal.pk}/change/']")
    diff = page.inner_text(".cortex-diff")
    assert "+## Known pitfalls" in diff and "has not been read yet" in diff
    added = page.locator(".cortex-diff .diff-line", has_text="+## Known pitfalls")
    assert "17, 99, 41" in added.evaluate("e => getComputedStyle(e).color")  # #116329
    page.click("#cortex-approve")
    page.wait_for_selector("#cortex-state")
    assert page.inner_text("#cortex-state") == "applied"

    proposal = Proposal.objects.get(pk=proposal.pk)
    assert proposal.state == "applied" and proposal.decided_by == "alice"
    remote = run_git(repo.remote, "rev-parse", f"refs/heads/{proposal.branch}").strip()
    assert remote == proposal.commit_sha
    landed = run_git(repo.remote, "show", f"{proposal.commit_sha}:CLAUDE.md")
    assert "## Known pitfalls" in landed
