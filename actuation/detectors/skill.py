"""A recurring multi-step procedure: the same sequence of tool uses in at least N sessions
of a project -> a `skill`, a new `.claude/skills/<name>/SKILL.md` with its steps. The
tools it uses (entities of `world:artifact`, strong and not quarantined) ground it."""

from __future__ import annotations

import re
import shlex
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

from actuation.detectors.base import Detector, Draft
from actuation.formats.skill import skill_path, skill_problems, skill_render
from actuation.models import TargetRepository
from actuation.selectors.graph import Graph, Grounding, Occurrence, tool_uses
from memory.config import DecayConfig

NAME = "procedures"
_PLAIN = re.compile(r"^[A-Za-z0-9_.:+-]{1,40}$")
_ENV = re.compile(r"^[A-Za-z_]\w*=")
MAX_NAME = 64
# `uv run pytest`, `npm run build`: the subcommand runs the program named next.
_RUNNERS = frozenset({"run", "exec", "x", "dlx"})

Steps = tuple[str, ...]


def step_of(tool: str, command: str) -> str:
    """`Edit`, or `Bash: pytest`, `Bash: git commit`, `Bash: uv run pytest` (the program, its
    subcommand, and what a runner subcommand runs)."""
    if tool != "Bash":
        return tool if _PLAIN.match(tool) else ""
    first = re.split(r"&&|\|\||;|\||\n", command, maxsplit=1)[0]
    try:
        words = [w for w in shlex.split(first) if not _ENV.match(w)]
    except ValueError:
        return ""
    words = [w.rsplit("/", 1)[-1] if i == 0 else w for i, w in enumerate(words)]
    width = 3 if len(words) > 2 and words[1] in _RUNNERS else 2
    kept = [w for w in words[:width] if _PLAIN.match(w) and not w.startswith("-")]
    return f"Bash: {' '.join(kept)}" if kept and kept[0] == words[0] else ""


def sequences(steps: Sequence[str], *, low: int, high: int) -> set[Steps]:
    """Contiguous runs of `low`..`high` steps (repeats collapsed) using two tools or more."""
    collapsed = [s for i, s in enumerate(steps) if s and (i == 0 or s != steps[i - 1])]
    found = set()
    for n in range(low, high + 1):
        for i in range(len(collapsed) - n + 1):
            run = tuple(collapsed[i:i + n])
            if len(set(run)) >= 2:
                found.add(run)
    return found


def _contains(longer: Steps, shorter: Steps) -> bool:
    n = len(shorter)
    return any(longer[i:i + n] == shorter for i in range(len(longer) - n + 1))


def recurring(by_session: dict[str, list[str]], *, low: int, high: int,
              min_sessions: int) -> list[tuple[Steps, set[str]]]:
    """The maximal sequences seen in at least `min_sessions` sessions."""
    support: dict[Steps, set[str]] = defaultdict(set)
    for session, steps in by_session.items():
        for run in sequences(steps, low=low, high=high):
            support[run].add(session)
    frequent = sorted(((run, s) for run, s in support.items() if len(s) >= min_sessions),
                      key=lambda item: (-len(item[0]), -len(item[1]), item[0]))
    kept: list[tuple[Steps, set[str]]] = []
    for run, sessions in frequent:
        if not any(_contains(other, run) for other, _ in kept):
            kept.append((run, sessions))
    return kept


def skill_name(steps: Steps) -> str:
    words = re.sub(r"[^a-z0-9]+", "-", " ".join(steps).casefold()).strip("-")
    name = re.sub(r"-{2,}", "-", f"procedure-{words}")[:MAX_NAME].strip("-")
    return name


def _tools(steps: Steps) -> set[str]:
    return {s.split(":", 1)[0].casefold() for s in steps}


def _draft(graph: Graph, steps: Steps, sessions: set[str], events: list[Occurrence],
           tools: list[Grounding], repository: TargetRepository) -> Draft | None:
    grounding = [g for g in tools if g.name.casefold() in _tools(steps)]
    if not grounding:
        return None
    name = skill_name(steps)
    flow = ", then ".join(steps)
    description = (f"Runs the procedure the agent repeated across sessions of "
                   f"{repository.name}: {flow}. Use it when doing that same work again.")
    body_steps = [f"`{s.split(': ', 1)[1]}` (Bash)" if s.startswith("Bash: ") else f"`{s}`"
                  for s in steps]
    text = skill_render(name=name, description=description,
                        title=f"Procedure: {flow}", steps=body_steps,
                        notes=["Seen as is in the operator's sessions; adapt the arguments."])
    body = text.split("---\n", 2)[-1]
    if skill_problems(name=name, description=description, body=body, folder=name):
        return None
    path = skill_path(name)
    before = graph.file(repository, path)
    if before is not None:
        return None
    return Draft(
        detector=NAME, diff_type="skill", repository=repository,
        file_path=path, pattern_key=f"procedure:{' > '.join(steps)}"[:300], short_name=name,
        title=f"New skill {name}", before=None, after=text, grounding=grounding,
        occurrences=events,
        rationale=(f"The same {len(steps)} steps ({flow}) ran in {len(sessions)} sessions of "
                   f"{repository.name}. A skill names the procedure so that the next session "
                   "can run it as one."),
    )


def detect(graph: Graph, now: datetime, config: DecayConfig) -> list[Draft]:
    cfg = config.actuation.skill
    tools = graph.grounded(namespace="world:artifact")
    drafts = []
    for repository in graph.repositories:
        by_session: dict[str, list[str]] = defaultdict(list)
        events: dict[str, list[Occurrence]] = defaultdict(list)
        for session, eid, at, tool, command in tool_uses(
                repository=repository, since=graph.since, until=now,
                batch_size=config.actuation.batch_size):
            by_session[session].append(step_of(tool, command))
            events[session].append(Occurrence(observation="", entity=0, session=session,
                                              at=at, payload={}, events=(eid,)))
        found = recurring(by_session, low=cfg.min_steps, high=cfg.max_steps,
                          min_sessions=cfg.min_sessions)
        for steps, sessions in found[:cfg.max_per_repository]:
            evidence = [o for s in sorted(sessions) for o in events[s]][:200]
            if draft := _draft(graph, steps, sessions, evidence, tools, repository):
                drafts.append(draft)
    return drafts


DETECTOR = Detector(name=NAME, diff_type="skill", detect=detect)
