"""`cortex ingest gh`: pull requests, issues, reviews and comments as their own events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management.base import CommandError

from memory.models.events import MemoryEvent

from .helpers import ingest

pytestmark = pytest.mark.django_db

PRS = [
    {
        "number": 42, "title": "Add VAT rounding", "body": "Fixes #7",
        "author": {"login": "chloe", "is_bot": False}, "state": "MERGED",
        "createdAt": "2026-02-03T09:00:00Z", "mergedAt": "2026-02-04T10:00:00Z",
        "headRefName": "feature/vat", "baseRefName": "main",
        "url": "https://github.com/acme/billing-api/pull/42",
        "reviews": [{"id": "PRR_1", "author": {"login": "alice"}, "state": "APPROVED",
                     "body": "LGTM", "submittedAt": "2026-02-04T08:00:00Z"}],
        "comments": [{"id": "IC_1", "author": {"login": "bruno"}, "body": "Nice",
                      "createdAt": "2026-02-03T12:00:00Z"}],
    },
]
ISSUES = [
    {"number": 7, "title": "VAT is off by a cent", "author": {"login": "operator"},
     "state": "CLOSED", "createdAt": "2026-01-30T09:00:00Z",
     "url": "https://github.com/acme/billing-api/issues/7",
     "comments": [{"author": {"login": "alice"}, "body": "Repro'd",
                   "createdAt": "2026-01-31T09:00:00Z"}]},
]


def test_prs_and_issues_with_their_reviews_and_comments(tmp_path: Path) -> None:
    (tmp_path / "prs.json").write_text(json.dumps(PRS))
    (tmp_path / "issues.json").write_text(json.dumps(ISSUES))
    assert ingest("gh", str(tmp_path / "prs.json"))["events_stored"] == 3
    assert ingest("gh", str(tmp_path / "issues.json"))["events_stored"] == 2
    events = {e.source_id: e for e in MemoryEvent.objects.filter(source="gh")}
    pr = events["acme/billing-api#42"]
    assert (pr.subtype, pr.actor, pr.project) == ("pull_request", "chloe", "billing-api")
    assert pr.payload["title"] == "Add VAT rounding"
    review = events["acme/billing-api#42:review:PRR_1"]
    assert (review.subtype, review.actor) == ("review", "alice")
    assert review.correlation_parent == "acme/billing-api#42"
    assert review.occurred_at.isoformat() == "2026-02-04T08:00:00+00:00"
    assert events["acme/billing-api#42:comment:IC_1"].subtype == "comment"
    assert events["acme/billing-api#7"].subtype == "issue"
    issue_comments = [k for k in events if k.startswith("acme/billing-api#7:comment:")]
    assert len(issue_comments) == 1


def test_a_second_import_stores_nothing_and_the_repo_can_be_named(tmp_path: Path) -> None:
    export = [{k: v for k, v in PRS[0].items() if k != "url"}]
    (tmp_path / "prs.json").write_text(json.dumps(export))
    first = ingest("gh", str(tmp_path / "prs.json"), "--repo", "acme/shop")
    again = ingest("gh", str(tmp_path / "prs.json"), "--repo", "acme/shop")
    assert first["events_stored"] == 3
    assert (again["events_stored"], again["duplicates"]) == (0, 3)
    assert MemoryEvent.objects.get(source_id="acme/shop#42").subtype == "pull_request"


@pytest.mark.parametrize(("content", "said"), [
    (b"name,title\n42,Add VAT rounding\n", "not JSON"),
    (json.dumps({"name": "shop", "version": "1.0.0"}).encode(), "item 1 has no number"),
    (json.dumps([*PRS, {"title": "no number"}]).encode(), "item 2 has no number"),
    (json.dumps([{k: v for k, v in PRS[0].items() if k != "url"}]).encode(),
     "item 1 has no url"),
])
def test_a_file_that_is_not_an_export_is_refused_whole(tmp_path: Path, content: bytes,
                                                       said: str) -> None:
    (tmp_path / "export.json").write_bytes(content)
    with pytest.raises(CommandError, match=said) as refused:
        ingest("gh", str(tmp_path / "export.json"))
    assert str(refused.value).startswith(f"{tmp_path / 'export.json'}: ")
    assert not MemoryEvent.objects.filter(source="gh").exists()


def test_an_empty_export_is_an_export(tmp_path: Path) -> None:
    (tmp_path / "prs.json").write_text("[]")
    assert ingest("gh", str(tmp_path / "prs.json"))["events_stored"] == 0
