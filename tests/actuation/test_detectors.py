"""Each detector on constructed graphs: it fires at its threshold, not below."""

from __future__ import annotations

import json
from types import ModuleType

import pytest

from actuation.detectors import allowlist, corrections, instructions, skill
from actuation.detectors.base import Detector, Draft
from actuation.formats.skill import skill_front_matter, skill_problems
from actuation.models import Proposal, TargetRepository
from actuation.selectors.graph import Graph
from actuation.services.detection import detection_run
from memory.config import config_get
from tests.actuation import graphs
from tests.actuation.helpers import NOW

CFG = config_get().actuation


def _drafts(module: ModuleType) -> list[Draft]:
    graph = Graph(now=NOW, config=config_get())
    detector: Detector = module.DETECTOR
    return list(detector.detect(graph, NOW, config_get()))


def _added(diff: str) -> list[str]:
    return [line[1:] for line in diff.splitlines()
            if line.startswith("+") and not line.startswith("+++")]


@pytest.mark.django_db
@pytest.mark.parametrize("sessions, fires", [(CFG.allowlist.min_sessions, True),
                                              (CFG.allowlist.min_sessions - 1, False)])
def test_allowlist(target: TargetRepository, sessions: int, fires: bool) -> None:
    graphs.submit(graphs.grants(sessions=sessions))
    drafts = _drafts(allowlist)
    assert bool(drafts) is fires
    if fires:
        (draft,) = drafts
        assert json.loads(draft.after) == {"permissions": {"allow": ["Bash(npm test:*)"]}}


@pytest.mark.django_db
def test_allowlist_skips_a_rule_the_operator_also_denied(target: TargetRepository) -> None:
    graphs.submit(graphs.grants(sessions=CFG.allowlist.min_sessions + 2)
                  + graphs.grants(sessions=1, decision="denied", prefix="d"))
    assert _drafts(allowlist) == []


@pytest.mark.django_db
@pytest.mark.parametrize("rule", ["Bash(*)", "Bash", "Bash(npx:*)", "Bash(bash -c:*)",
                                  "Bash(uv run:*)", "Bash(docker exec:*)",
                                  "Bash(npm test && rm -rf /:*)", "Edit"])
def test_allowlist_never_proposes_a_broad_rule(target: TargetRepository, rule: str) -> None:
    graphs.submit(graphs.grants(sessions=CFG.allowlist.min_sessions + 3, rule=rule))
    assert _drafts(allowlist) == []


@pytest.mark.django_db
@pytest.mark.parametrize("sessions, fires", [(CFG.memory_entry.min_sessions, True),
                                              (CFG.memory_entry.min_sessions - 1, False)])
def test_instructions(target: TargetRepository, sessions: int, fires: bool) -> None:
    graphs.submit(graphs.instructions(sessions=sessions))
    drafts = _drafts(instructions)
    assert bool(drafts) is fires
    if fires:
        (draft,) = drafts
        assert draft.diff_type == "memory_entry" and draft.file_path == "CLAUDE.md"
        assert '- Always: "use pnpm".' in draft.after.splitlines()


@pytest.mark.django_db
def test_instructions_wait_for_a_contradiction_to_be_reviewed(target: TargetRepository) -> None:
    graphs.submit(graphs.instructions(sessions=CFG.memory_entry.min_sessions)
                  + graphs.instructions(sessions=1, polarity="negative",
                                        text="Never use pnpm.", prefix="n"))
    assert _drafts(instructions) == []


@pytest.mark.django_db
@pytest.mark.parametrize("sessions, fires", [(CFG.memory_entry.min_sessions, True),
                                              (CFG.memory_entry.min_sessions - 1, False)])
def test_corrections(target: TargetRepository, sessions: int, fires: bool) -> None:
    graphs.submit(graphs.corrections(sessions=sessions))
    drafts = _drafts(corrections)
    assert bool(drafts) is fires
    if fires:
        assert '- Always: "use pnpm", not "npm".' in drafts[0].after.splitlines()


STEPS = [("Edit", ""), ("Bash", "pytest -q tests"), ("Bash", "git commit -m wip")]


@pytest.mark.django_db
@pytest.mark.parametrize("sessions, fires", [(CFG.skill.min_sessions, True),
                                              (CFG.skill.min_sessions - 1, False)])
def test_skill(target: TargetRepository, sessions: int, fires: bool) -> None:
    # The tools are in the graph (a tool error names Edit, a grant names Bash).
    graphs.submit(graphs.tool_errors(sessions=1) + graphs.grants(sessions=1))
    graphs.tool_use_sessions(sessions=sessions, steps=STEPS)
    drafts = _drafts(skill)
    assert bool(drafts) is fires
    if fires:
        (draft,) = drafts
        name = "fix-failing-test"
        assert draft.file_path == f".claude/skills/{name}/SKILL.md" and draft.before is None
        front = skill_front_matter(draft.after)
        assert front["name"] == name
        body = draft.after.split("---\n", 2)[-1]
        assert skill_problems(name=front["name"], description=front["description"],
                              body=body, folder=name) == []
        assert "1. `Edit`" in draft.after and "2. `pytest` (Bash)" in draft.after


@pytest.mark.django_db
def test_skill_needs_a_grounded_tool(target: TargetRepository) -> None:
    graphs.tool_use_sessions(sessions=CFG.skill.min_sessions + 1, steps=STEPS)
    assert _drafts(skill) == []


@pytest.mark.django_db
def test_every_detector_runs_in_one_detection(target: TargetRepository) -> None:
    graphs.submit(graphs.tool_errors(sessions=CFG.claude_md.min_sessions)
                  + graphs.grants(sessions=CFG.allowlist.min_sessions)
                  + graphs.instructions(sessions=CFG.memory_entry.min_sessions))
    detection_run(now=NOW)
    assert set(Proposal.objects.values_list("diff_type", flat=True)) == {
        "claude_md", "allowlist", "memory_entry"}
