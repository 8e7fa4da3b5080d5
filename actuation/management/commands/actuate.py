"""`cortex actuate repo add NAME PATH [--remote R] [--branch B]`,
`detect [--dry-run] [--json] [--now ISO]`, `list [--state STATE] [--json]`, `show ID [--json]`,
`approve ID [--drop KEY]... [--by USERNAME]`, `reject ID --reason TEXT [--by USERNAME]`:
Layer 4 from the terminal."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from typing import Any

from actuation.models import Proposal, ProposalState, PullRequestMode
from actuation.selectors.operators import operator_default
from actuation.selectors.proposals import (
    proposal_as_dict,
    proposal_get,
    proposal_list,
    proposal_outcome_line,
)
from actuation.selectors.repositories import repository_list
from actuation.services.applying import proposal_apply
from actuation.services.detection import detection_run
from actuation.services.proposals import proposal_approve, proposal_reject
from actuation.services.repositories import repository_add
from memory.management.base import DomainCommand, instant


class Command(DomainCommand):
    help = "Layer 4: target repositories, detection, and the approval queue."

    def add_arguments(self, parser: ArgumentParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        repo = actions.add_parser("repo", help="Target repositories.")
        repo_actions = repo.add_subparsers(dest="repo_action", required=True)
        add = repo_actions.add_parser("add", help="Register (or update) a repository.")
        add.add_argument("name")
        add.add_argument("path")
        add.add_argument("--remote", default="origin")
        add.add_argument("--branch", default="main")
        add.add_argument("--pr-mode", default=PullRequestMode.GH, choices=PullRequestMode.values)
        add.add_argument("--memory-file", default="")
        detect = actions.add_parser("detect", help="Run the detectors now.")
        detect.add_argument("--dry-run", action="store_true")
        detect.add_argument("--json", action="store_true")
        detect.add_argument("--now", type=instant, default=None,
                            help="Detect as if at this ISO time (default: now).")
        listing = actions.add_parser("list", help="The approval queue.")
        listing.add_argument("--state", default=None, choices=ProposalState.values)
        listing.add_argument("--json", action="store_true")
        show = actions.add_parser("show", help="One proposal, with its diff.")
        show.add_argument("id", type=int)
        show.add_argument("--json", action="store_true")
        approve = actions.add_parser("approve", help="Approve; the change is applied.")
        approve.add_argument("id", type=int)
        approve.add_argument("--by", default=None)
        approve.add_argument("--drop", action="append", default=[], metavar="KEY",
                             help="Drop this item (a rule, a pitfall's key, as `show` lists "
                                  "them) before approving; never proposed again. Repeatable.")
        approve.add_argument("--wait", action="store_true",
                             help="Apply in the foreground (no worker needed) and print it.")
        reject = actions.add_parser("reject", help="Reject, with a reason.")
        reject.add_argument("id", type=int)
        reject.add_argument("--reason", required=True)
        reject.add_argument("--by", default=None)

    def handle(self, *args: Any, **options: Any) -> None:
        getattr(self, f"_{options['action']}")(options)

    def _json(self, data: Any) -> None:
        self.stdout.write(json.dumps(data, indent=2, default=str))

    def _repo(self, options: dict[str, Any]) -> None:
        repository = repository_add(name=options["name"], path=options["path"],
                                    remote=options["remote"], branch=options["branch"],
                                    pr_mode=options["pr_mode"],
                                    memory_file=options["memory_file"])
        self.stdout.write(f"repository {repository.name}: {repository.path} "
                          f"({repository.default_branch} -> {repository.remote})")

    def _detect(self, options: dict[str, Any]) -> None:
        report = detection_run(now=options["now"], dry_run=options["dry_run"])
        drafts = [{"detector": d.detector, "diff_type": d.diff_type,
                   "repository": d.repository.name, "file": d.file_path, "title": d.title}
                  for d in report.drafts]
        if options["json"]:
            self._json({"drafts": drafts, "outcomes": dict(report.outcomes),
                        "proposals": report.proposals, "dry_run": options["dry_run"]})
            return
        for draft in drafts:
            self.stdout.write(f"{draft['diff_type']:<13} {draft['repository']:<16} "
                              f"{draft['file']}: {draft['title']}")
        verb = "would be proposed" if options["dry_run"] else "proposed"
        self.stdout.write(f"{len(drafts)} detected; {len(report.proposals)} {verb} now"
                          + ("" if options["dry_run"] else f" {dict(report.outcomes)}"))

    def _line(self, p: Proposal) -> str:
        flag = " [capability grant]" if p.diff_type == "allowlist" else ""
        outcome = proposal_outcome_line(p)
        return (f"#{p.pk:<5} {p.state:<10} {p.diff_type:<13} {p.repository.name:<16} "
                f"{p.title}{flag}{f' ({outcome})' if outcome else ''}")

    def _list(self, options: dict[str, Any]) -> None:
        rows = list(proposal_list(state=options["state"]))
        if options["json"]:
            self._json([proposal_as_dict(p) for p in rows])
            return
        for proposal in rows:
            self.stdout.write(self._line(proposal))
        if not rows:
            self.stdout.write(self._none(options["state"]))

    @staticmethod
    def _none(state: str | None) -> str:
        if not repository_list():
            return ("No proposals: Cortex proposes changes to the repositories you add "
                    "(cortex actuate repo add NAME PATH).")
        return (f"No {state + ' ' if state else ''}proposals (the nightly sleep cycle looks "
                "for patterns; cortex actuate detect looks now).")

    def _show(self, options: dict[str, Any]) -> None:
        proposal = proposal_get(proposal_id=options["id"])
        if options["json"]:
            self._json(proposal_as_dict(proposal))
            return
        self.stdout.write(self._line(proposal))
        self.stdout.write(f"\n{proposal.rationale}\n")
        for warning in proposal.warnings:
            self.stdout.write(f"warning: {warning}")
        items = list(proposal.items.all())
        if len(items) > 1:
            self.stdout.write("items (drop one with approve ID --drop KEY):")
            for item in items:
                seen = item.evidence or {}
                self.stdout.write(f"  {'[dropped] ' if item.dropped else ''}{item.key}: "
                                  f"{seen.get('sessions', '?')} sessions, last "
                                  f"{str(seen.get('last_seen', '?'))[:10]}")
        self.stdout.write(proposal.diff)
        if proposal.commit_sha:
            self.stdout.write(f"commit {proposal.commit_sha} on {proposal.branch} "
                              f"{proposal.pr_url or proposal.pr_command}")

    def _approve(self, options: dict[str, Any]) -> None:
        proposal = proposal_approve(proposal_id=options["id"], by=_decider(options),
                                    drop=options["drop"])
        if not options["wait"]:
            self.stdout.write(f"#{proposal.pk} approved by {proposal.decided_by}; the worker "
                              "applies it.")
            return
        proposal = proposal_apply(proposal_id=proposal.pk)
        self.stdout.write(f"#{proposal.pk} approved by {proposal.decided_by}: {proposal.state}")
        if proposal.commit_sha:
            opened = proposal.pr_url or proposal.pr_command
            self.stdout.write(f"commit {proposal.commit_sha} on {proposal.branch} of "
                              f"{proposal.repository.remote}; {opened}")
        elif proposal.failure_reason:
            self.stdout.write(proposal.failure_reason)

    def _reject(self, options: dict[str, Any]) -> None:
        proposal = proposal_reject(proposal_id=options["id"], reason=options["reason"],
                                   by=_decider(options))
        self.stdout.write(f"#{proposal.pk} rejected by {proposal.decided_by}.")


def _decider(options: dict[str, Any]) -> str:
    """--by, else the local operator: a proposal that does not exist is said first (no
    operator account is then beside the point)."""
    if options["by"]:
        return str(options["by"])
    proposal_get(proposal_id=options["id"])
    return operator_default()
