"""Proposals an operator would merge (issue 29): grouped (one allowlist proposal, one pitfalls
change per repository and detection, items dropped before approving and never proposed
again), pitfalls that are the agent's recovered mistakes, skills with a purpose, only
instructions as instructions, no interaction style, and a budget per repository."""

from __future__ import annotations

import json
from datetime import timedelta
from unittest import mock

import pytest

from actuation.models import Proposal, ProposalItem, TargetRepository
from actuation.services import proposals as proposal_services
from actuation.services.detection import detection_run
from actuation.services.proposals import proposal_approve, proposal_items_drop, proposal_reject
from memory.config import config_get
from memory.errors import Invalid
from memory.models import MemoryEvent
from tests.actuation import graphs
from tests.actuation.helpers import NOW, operator

CFG = config_get().actuation
RULES = ("Bash(npm test:*)", "Bash(git status:*)", "Bash(ls:*)")
NOT_READ = "file has not been read yet. read it first before writing to it."


@pytest.fixture(autouse=True)
def _no_queue() -> object:
    with mock.patch.object(proposal_services, "task_enqueue"):
        yield


def _grant(*rules: str, sessions: int = CFG.allowlist.min_sessions, tag: str = "") -> None:
    for n, rule in enumerate(rules):
        graphs.submit(graphs.grants(sessions=sessions + n, rule=rule, prefix=f"g{tag}{n}-"))


def _added(diff: str) -> list[str]:
    return [line[1:] for line in diff.splitlines()
            if line.startswith("+") and not line.startswith("+++")]


# ---- grouped allowlist, items dropped -----------------------------------------------------

@pytest.mark.django_db
def test_one_allowlist_proposal_per_repository_with_each_rules_evidence(
        target: TargetRepository) -> None:
    _grant(*RULES)
    detection_run(now=NOW)
    (proposal,) = Proposal.objects.filter(diff_type="allowlist")
    added = "\n".join(_added(proposal.diff))
    assert all(f'"{rule}"' in added for rule in RULES)
    items = {i.key: i.evidence for i in proposal.items.all()}
    assert set(items) == set(RULES)
    for n, rule in enumerate(RULES):  # rule n was granted in min_sessions + n sessions
        assert items[rule]["sessions"] == CFG.allowlist.min_sessions + n
        assert items[rule]["granted"] == CFG.allowlist.min_sessions + n
        assert items[rule]["last_seen"].startswith("2026-03-0")
    assert [i.key for i in proposal.items.order_by("position")][0] == RULES[-1]  # most first


@pytest.mark.django_db
def test_rules_dropped_before_approving_are_never_proposed_again(
        target: TargetRepository) -> None:
    operator("alice")
    _grant(*RULES)
    detection_run(now=NOW)
    proposal = Proposal.objects.get(diff_type="allowlist")
    approved = proposal_approve(proposal_id=proposal.pk, by="alice", now=NOW,
                                drop=[RULES[0], RULES[2]])
    assert approved.state == "approved"
    assert "new file mode" in approved.diff  # the repository had no settings: all added
    assert json.loads("\n".join(_added(approved.diff))) == {"permissions": {"allow": [RULES[1]]}}
    assert approved.content_hash != proposal.content_hash
    assert approved.title == f"Allow 1 granted rule: {RULES[1]}"
    dropped = set(ProposalItem.objects.filter(dropped=True).values_list("key", flat=True))
    assert dropped == {RULES[0], RULES[2]}
    event = MemoryEvent.objects.get(source="operator:alice", subtype="proposal.drop")
    assert event.payload["dropped"] == [RULES[0], RULES[2]]

    # The approved change is not merged yet and the grants go on, a new rule too: only the
    # new rule is proposed; the dropped ones, and the one approved, never again.
    _grant(*RULES, "Bash(make lint:*)", tag="later")
    report = detection_run(now=NOW + timedelta(hours=6))
    (newer,) = Proposal.objects.filter(diff_type="allowlist", state="proposed")
    assert [i.key for i in newer.items.all()] == ["Bash(make lint:*)"]
    assert newer.pk in report.proposals


@pytest.mark.django_db
def test_drop_refuses_an_unknown_item_or_every_item(target: TargetRepository) -> None:
    operator("alice")
    _grant(*RULES[:2])
    detection_run(now=NOW)
    proposal = Proposal.objects.get(diff_type="allowlist")
    with pytest.raises(Invalid) as unknown:
        proposal_items_drop(proposal_id=proposal.pk, keys=["Bash(rm:*)"], by="alice")
    assert unknown.value.fields == {"drop": "unknown item"}
    with pytest.raises(Invalid):
        proposal_items_drop(proposal_id=proposal.pk, keys=list(RULES[:2]), by="alice")
    proposal.refresh_from_db()
    assert proposal.state == "proposed" and not proposal.items.filter(dropped=True).exists()


@pytest.mark.django_db
def test_a_rejected_group_remembers_each_of_its_rules(target: TargetRepository) -> None:
    operator("alice")
    _grant(*RULES[:2])
    detection_run(now=NOW)
    proposal = Proposal.objects.get(diff_type="allowlist")
    proposal_reject(proposal_id=proposal.pk, by="alice", reason="not these", now=NOW)
    _grant(*RULES[:2], tag="again")
    detection_run(now=NOW + timedelta(hours=6))
    assert not Proposal.objects.filter(diff_type="allowlist", state="proposed").exists()


# ---- pitfalls -------------------------------------------------------------------------------

@pytest.mark.django_db
def test_pitfalls_are_one_change_a_line_each_saying_what_to_do(
        target: TargetRepository) -> None:
    n = CFG.claude_md.min_sessions
    graphs.submit(graphs.tool_errors(sessions=n, message=NOT_READ)
                  + graphs.tool_errors(sessions=n, tool="Bash", command="pytest -q",
                                       message="bash: pytest: command not found",
                                       then=(("Bash", "uv run pytest -q"),), prefix="u"))
    detection_run(now=NOW)
    (proposal,) = Proposal.objects.filter(diff_type="claude_md")
    added = _added(proposal.diff)
    assert ("- Read a file before editing or writing it. Otherwise `Edit` fails with "
            f'"{NOT_READ}" (the tool\'s message, quoted).') in added
    assert ("- Use `uv run pytest` instead of `pytest`. Otherwise `pytest` fails with "
            '"bash: pytest: command not found" (the tool\'s message, quoted).') in added
    assert proposal.items.count() == 2
    assert {i.evidence["then"] for i in proposal.items.all()} == {"Read", "Bash: uv run pytest"}


@pytest.mark.django_db
def test_one_line_per_thing_to_do(target: TargetRepository) -> None:
    """`cat` and `ls` failing on a missing path call for the same line: it is written once,
    for the more evidenced of the two."""
    n = CFG.claude_md.min_sessions
    graphs.submit(
        graphs.tool_errors(sessions=n + 1, tool="Bash", command="cat notes/todo.md",
                           message="(eval):<n>: no such file or directory: <path>",
                           then=(("Glob", ""), ("Bash", "cat docs/todo.md")), prefix="c")
        + graphs.tool_errors(sessions=n, tool="Bash", command="ls types/",
                             message="ls: cannot access 'types/': no such file or directory",
                             then=(("Glob", ""), ("Bash", "ls src/types/")), prefix="l"))
    detection_run(now=NOW + timedelta(days=1))
    (proposal,) = Proposal.objects.filter(diff_type="claude_md")
    added = [line for line in _added(proposal.diff) if line.startswith("- ")]
    assert added == ["- Check that a path exists before reading it. Otherwise `cat` fails with "
                     '"(eval):<n>: no such file or directory: <path>" (the tool\'s message, '
                     "quoted)."]


@pytest.mark.django_db
@pytest.mark.parametrize("then", [(), (("Edit", ""),), (("Read", ""), ("Read", ""))],
                         ids=["nothing-after", "a-retry", "never-got-past-it"])
def test_an_error_the_agent_did_not_recover_from_is_no_pitfall(
        target: TargetRepository, then: tuple[tuple[str, str], ...]) -> None:
    graphs.submit(graphs.tool_errors(sessions=CFG.claude_md.min_sessions + 2, then=then))
    detection_run(now=NOW + timedelta(days=2))
    assert not Proposal.objects.filter(diff_type="claude_md").exists()


@pytest.mark.django_db
def test_fixing_the_code_is_no_recovery(target: TargetRepository) -> None:
    graphs.submit(graphs.tool_errors(sessions=CFG.claude_md.min_sessions, tool="Bash",
                                     command="make build", message="make: *** [all] error 2",
                                     then=(("Edit", ""), ("Bash", "make build"))))
    detection_run(now=NOW)
    assert not Proposal.objects.filter(diff_type="claude_md").exists()


@pytest.mark.django_db
def test_a_pitfall_recurs_across_days(target: TargetRepository) -> None:
    graphs.submit(graphs.tool_errors(sessions=CFG.claude_md.min_sessions + 2,
                                     spacing=timedelta(minutes=30)))  # all on one day
    detection_run(now=NOW)
    assert not Proposal.objects.filter(diff_type="claude_md").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("message", [
    "(no message)",
    "cannot use config.newconfig() (value of type *config) as string value in argument",
    "<path>:<n>:<n>: undefined: parsehandler",
    "--- fail: testparseinvoice (<n>s)",
    "compiling shop v<n> (<path>)",
])
def test_code_under_edit_empty_messages_and_progress_are_no_pitfalls(
        target: TargetRepository, message: str) -> None:
    graphs.submit(graphs.tool_errors(sessions=CFG.claude_md.min_sessions + 1, tool="Bash",
                                     command="go build ./...", message=message,
                                     then=(("Read", ""), ("Bash", "go build ./..."))))
    detection_run(now=NOW + timedelta(days=1))
    assert not Proposal.objects.filter(diff_type="claude_md").exists()


# ---- skills with a purpose ------------------------------------------------------------------

STEPS = [("Bash", "pytest -q tests"), ("Edit", ""), ("Bash", "pytest -q tests")]


@pytest.mark.django_db
def test_a_skill_is_named_and_described_by_the_task_its_sessions_were_started_for(
        target: TargetRepository) -> None:
    graphs.submit(graphs.tool_errors(sessions=1) + graphs.grants(sessions=1))  # tools known
    asked = ("Fix the failing test in tests/test_billing.py.",
             "Corrige le test qui échoue dans tests/test_users.py.",
             "Please fix the failing tests in tests/test_auth.py")
    graphs.tool_use_sessions(sessions=3, steps=STEPS, prompts=asked)
    report = detection_run(now=NOW)
    (draft,) = [d for d in report.drafts if d.diff_type == "skill"]
    assert draft.file_path == ".claude/skills/fix-failing-test/SKILL.md"
    assert "Corrige le test" in draft.after or "Fix the failing test" in draft.after
    assert "1. `pytest` (Bash)\n2. `Edit`\n3. `pytest` (Bash)" in draft.after
    assert len(draft.evidence()["sessions"]) == 3
    assert {q["by"] for q in draft.evidence()["quotes"]} == {
        "the operator, starting the session"}


@pytest.mark.django_db
def test_the_same_steps_for_unrelated_tasks_make_no_skill(target: TargetRepository) -> None:
    graphs.submit(graphs.tool_errors(sessions=1) + graphs.grants(sessions=1))
    asked = ("Fix the failing test in tests/test_billing.py.",
             "Add pagination to the invoices listing.",
             "Why is the export slow on big accounts?")
    graphs.tool_use_sessions(sessions=3, steps=STEPS, prompts=asked)
    report = detection_run(now=NOW)
    assert not [d for d in report.drafts if d.diff_type == "skill"]


@pytest.mark.django_db
def test_bookkeeping_and_reading_alone_are_no_procedure(target: TargetRepository) -> None:
    graphs.submit(graphs.tool_errors(sessions=1) + graphs.grants(sessions=1))
    steps = [("Read", ""), ("TodoWrite", ""), ("Grep", ""), ("TaskUpdate", ""), ("Read", "")]
    graphs.tool_use_sessions(sessions=4, steps=steps)
    report = detection_run(now=NOW)
    assert not [d for d in report.drafts if d.diff_type == "skill"]


@pytest.mark.django_db
def test_one_session_imported_again_is_no_recurring_procedure(
        target: TargetRepository) -> None:
    """One session imported again under other ids (its prompt and tool calls, in the same
    project, at the same times) is one session: no skill, however many imports."""
    graphs.submit(graphs.tool_errors(sessions=1) + graphs.grants(sessions=1))
    graphs.tool_use_sessions(sessions=CFG.skill.min_sessions - 1, steps=STEPS,
                             reimports=3)
    report = detection_run(now=NOW)
    assert not [d for d in report.drafts if d.diff_type == "skill"]


@pytest.mark.django_db
def test_a_skill_counts_a_session_imported_again_once(target: TargetRepository) -> None:
    graphs.submit(graphs.tool_errors(sessions=1) + graphs.grants(sessions=1))
    n = CFG.skill.min_sessions
    graphs.tool_use_sessions(sessions=n, steps=STEPS, reimports=4)  # n sessions, 4 imports
    report = detection_run(now=NOW)
    (draft,) = [d for d in report.drafts if d.diff_type == "skill"]
    assert draft.title == f"New skill fix-failing-test: {n} sessions asked to fix failing test"
    assert draft.items[0].evidence["sessions"] == n
    assert len(draft.evidence()["sessions"]) == n
    quoted = [line for line in draft.after.splitlines() if line.startswith('- "Fix')]
    assert len(quoted) == len(set(quoted)) == n


@pytest.mark.django_db
def test_the_same_work_done_again_on_other_days_is_a_recurring_procedure(
        target: TargetRepository) -> None:
    """The same request and the same tool calls in sessions of their own on other days (an
    operator doing the same work again, or a history copied across months) recur."""
    graphs.submit(graphs.tool_errors(sessions=1) + graphs.grants(sessions=1))
    n = CFG.skill.min_sessions
    for day in range(n):
        graphs.tool_use_sessions(sessions=1, steps=STEPS, prefix=f"d{day}-",
                                 prompts=graphs.FIX_PROMPTS[:1],
                                 start=NOW - timedelta(days=day + 1))
    report = detection_run(now=NOW)
    (draft,) = [d for d in report.drafts if d.diff_type == "skill"]
    assert draft.items[0].evidence["sessions"] == n


@pytest.mark.django_db
def test_a_session_opened_by_a_command_has_no_task_to_read(target: TargetRepository) -> None:
    """The agent worked before the operator's first typed prompt (the session was opened
    by a slash command, or carried on from another conversation): its first prompt is not
    what it was started for, and makes no skill."""
    graphs.submit(graphs.tool_errors(sessions=1) + graphs.grants(sessions=1))
    n = CFG.skill.min_sessions + 1
    graphs.tool_use_sessions(sessions=n, steps=STEPS, prompts=())
    for i in range(n):  # each session's first prompt comes after its first tool call
        graphs.prompt(session=f"p{i}", text=graphs.FIX_PROMPTS[i % len(graphs.FIX_PROMPTS)],
                      at=graphs.T0 + timedelta(hours=i, seconds=30))
    report = detection_run(now=NOW)
    assert not [d for d in report.drafts if d.diff_type == "skill"]


# ---- a session counts once, however many times it was imported ------------------------------

@pytest.mark.django_db
def test_one_session_imported_again_makes_no_rule_pitfall_or_instruction(
        target: TargetRepository) -> None:
    """Each rule, pitfall, instruction and correction below is seen in one session fewer
    than needed, and in imports of the first of them under other ids (the same prompt and
    tool calls at the same times, as the same transcript imported twice is): nothing
    recurs enough, nothing is proposed."""
    n = max(CFG.allowlist.min_sessions, CFG.claude_md.min_sessions,
            CFG.memory_entry.min_sessions) - 1
    imports = 3
    for prefix in ("g", "i", "c"):
        graphs.tool_use_sessions(sessions=n, steps=STEPS, prefix=prefix, reimports=imports)
    graphs.submit(graphs.grants(sessions=n + imports) + graphs.instructions(sessions=n + imports)
                  + graphs.corrections(sessions=n + imports)
                  + graphs.tool_errors(sessions=n, message=NOT_READ, reimports=imports,
                                       spacing=timedelta(days=1)))
    report = detection_run(now=NOW + timedelta(days=1))
    assert report.drafts == [] and not Proposal.objects.exists()


# ---- only instructions become instructions --------------------------------------------------

@pytest.mark.django_db
@pytest.mark.parametrize("text", ["no, then it's good", "Entire Inc."])
def test_a_correction_that_states_no_rule_is_not_proposed(target: TargetRepository,
                                                          text: str) -> None:
    graphs.submit(graphs.corrections(sessions=CFG.memory_entry.min_sessions + 1, text=text))
    detection_run(now=NOW)
    assert not Proposal.objects.filter(detector="corrections").exists()


@pytest.mark.django_db
def test_an_instruction_whose_words_state_no_instruction_is_not_proposed(
        target: TargetRepository) -> None:
    graphs.submit(graphs.instructions(sessions=CFG.memory_entry.min_sessions + 1,
                                      text="The build uses pnpm."))
    detection_run(now=NOW)
    assert not Proposal.objects.filter(detector="instructions").exists()


@pytest.mark.django_db
def test_an_interaction_style_is_never_a_claude_md_change(target: TargetRepository) -> None:
    acts = ["directive"] * 30 + ["expressive"] * 15
    graphs.submit(graphs.interactions(acts=acts))
    report = detection_run(now=NOW)
    assert not report.drafts and not Proposal.objects.exists()


# ---- the budget -----------------------------------------------------------------------------

@pytest.mark.django_db
def test_a_budget_of_new_proposals_per_repository_the_rest_wait_never_lost(
        target: TargetRepository) -> None:
    budget = CFG.max_new_per_repository
    base = CFG.memory_entry.min_sessions
    # budget + 2 instructions, the k-th said in base + k sessions: the most evidenced first.
    tools = ["pnpm", "ruff", "uv", "httpx", "pytest", "mypy", "black", "nox"][:budget + 2]
    for k, tool in enumerate(tools):
        graphs.submit(graphs.instructions(sessions=base + k, claim=f"use {tool}",
                                          text=f"Always use {tool} here.", prefix=f"i{k}-"))
    first = detection_run(now=NOW + timedelta(days=1))
    proposed = Proposal.objects.filter(state="proposed")
    assert proposed.count() == budget == len(first.proposals)
    assert {p.title for p in proposed} == {f"Standing instruction: always use {t}"
                                           for t in tools[-budget:]}
    assert Proposal.objects.filter(state="waiting").count() == 2 == len(first.waiting)

    second = detection_run(now=NOW + timedelta(days=2))  # the next night: their turn
    assert second.outcomes["promoted"] == 2
    assert Proposal.objects.filter(state="proposed").count() == budget + 2
    assert not Proposal.objects.filter(state="waiting").exists()
