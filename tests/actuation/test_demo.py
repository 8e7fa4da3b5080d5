"""`cortex demo` ends with the proposals detected on its corpus; approving one lands a
commit on a branch of the demo's git repository's remote (a local bare repository)."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from actuation.models import Proposal
from insight.demo.run import demo_run
from tests.actuation.helpers import operator
from tests.actuation.repos import run_git


@pytest.mark.django_db(transaction=True)
def test_the_demo_proposes_and_an_approval_lands(tmp_path: Path, git_home: Path) -> None:
    report = demo_run(out=tmp_path / "demo")
    (section,) = [s for s in report.sections if s.title.startswith("Proposals")]
    assert section.rows, section.notes
    assert {row[2] for row in section.rows} == {"proposed"}
    kinds = {p.diff_type for p in Proposal.objects.all()}
    assert kinds, "the demo corpus yields proposals"

    operator("alice")
    proposal = Proposal.objects.order_by("id").first()
    assert proposal is not None
    out = StringIO()
    call_command("actuate", "approve", str(proposal.pk), "--by", "alice", "--wait", stdout=out)
    proposal.refresh_from_db()
    assert proposal.state == "applied", out.getvalue()
    bare = tmp_path / "demo" / "git" / "billing-api.git"
    assert run_git(bare, "rev-parse", f"refs/heads/{proposal.branch}").strip() \
        == proposal.commit_sha
    assert f"commit {proposal.commit_sha}" in out.getvalue()

    again = demo_run(out=tmp_path / "demo")  # a second run proposes nothing new
    assert Proposal.objects.count() == len(section.rows)
    assert again.sections[0].rows


@pytest.mark.django_db(transaction=True)
def test_the_demo_command_prints_the_proposals(tmp_path: Path, git_home: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    call_command("demo", out=tmp_path / "demo")
    output = capsys.readouterr().out
    assert "Proposals (Layer 4, the approval queue)" in output
    assert "cortex actuate approve ID --wait" in output
