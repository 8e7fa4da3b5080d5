"""A procedure with a purpose -> a `skill`, a new `.claude/skills/<name>/SKILL.md`: the
sessions of a project started for the same kind of task (their first prompts alike, in
English or French: `tasks`), at least N of them sharing the same steps; a session counts
when its first prompt opened it (not a slash command, not a conversation carried on), once
however many times it was imported (`Graph.fingerprints`). The skill is named and described by
that task ("fix-failing-test"), its steps are the ones those sessions shared, its evidence
links them. The tools it uses (entities of `world:artifact`, strong and not quarantined)
ground it. Task bookkeeping (TodoWrite, TaskUpdate...) is no step."""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

from actuation.detectors.base import Detector, Draft, Item, Quote
from actuation.detectors.steps import BOOKKEEPING, step_of, step_tool
from actuation.detectors.tasks import Task, task_name_words, tasks_group
from actuation.formats.quoting import quote
from actuation.formats.skill import skill_path, skill_problems, skill_render
from actuation.models import TargetRepository
from actuation.selectors.graph import (
    Graph,
    Grounding,
    Occurrence,
    first_prompts,
    tool_errors_of,
    tool_uses,
)
from memory.config import DecayConfig

NAME = "procedures"
MAX_NAME = 64
# Steps that only look: a procedure made of them alone does nothing to repeat.
LOOKING = frozenset({"Read", "Grep", "Glob", "LS", "WebFetch", "WebSearch", "Task", "Agent"})

Steps = tuple[str, ...]
# A task named by fewer words is no kind of task ("fix"); what the harness writes in the
# operator's turn (an IDE's notice, a command's output) is not what they asked.
MIN_TASK_WORDS = 2
NOT_ASKED = ("<", "Caveat:", "[Request interrupted", "This session is being continued")


def sequences(steps: Sequence[str], *, low: int, high: int) -> set[Steps]:
    """Contiguous runs of `low`..`high` steps (repeats collapsed) using two tools or more."""
    kept = [s for s in steps if s and s not in BOOKKEEPING]
    collapsed = [s for i, s in enumerate(kept) if i == 0 or s != kept[i - 1]]
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


def skill_name(words: Sequence[str]) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", " ".join(words).casefold()).strip("-")
    return re.sub(r"-{2,}", "-", slug)[:MAX_NAME].strip("-")


def _tools(steps: Steps) -> set[str]:
    return {s.split(":", 1)[0].casefold() for s in steps}


def _shown(step: str) -> str:
    return f"`{step.split(': ', 1)[1]}` (Bash)" if step.startswith("Bash: ") else f"`{step}`"


@dataclasses.dataclass
class Sessions:
    """A repository's sessions in the window: their steps, tool uses and first prompts."""

    steps: dict[str, list[str]]
    uses: dict[str, list[Occurrence]]
    firsts: dict[str, tuple[str, str, datetime]]


def opened_by_prompt(seen: Sessions, session: str) -> bool:
    """Whether the operator's first prompt opened the session, before the agent's first tool
    call. A session opened by a command (`/init`, a custom slash command) or carried on from
    an earlier conversation was started for something its first typed prompt does not say
    ("ok, now write the program..." after `/init`): its task cannot be read."""
    uses = seen.uses.get(session)
    return not uses or uses[0].at >= seen.firsts[session][2]


def distinct(prints: dict[str, str], sessions: Sequence[str]) -> list[str]:
    """The first of each set of sessions with one fingerprint (`Graph.fingerprints`: one
    session imported under several ids), in the order given."""
    seen: set[str] = set()
    out = []
    for session in sessions:
        if (key := prints.get(session, session)) not in seen:
            seen.add(key)
            out.append(session)
    return out


def _draft(graph: Graph, task: Task, steps: Steps, following: set[str], seen: Sessions,
           tools: list[Grounding], repository: TargetRepository,
           config: DecayConfig) -> Draft | None:
    cfg = config.actuation.skill
    grounding = [g for g in tools if g.name.casefold() in _tools(steps)]
    words = task_name_words(task)
    name = skill_name(words)
    if not grounding or not name or name in graph.settled(repository, NAME):
        return None
    asked = task.prompts[task.representative()]
    said = quote(asked, limit=160).replace("<", "‹").replace(">", "›")
    flow = ", then ".join(_shown(s) for s in steps)
    description = (f"Use when asked to {' '.join(words)}, as in {said} (or alike, in English "
                   f"or French): {flow}.")
    text = skill_render(name=name, description=description,
                        title=f"Task: {' '.join(words)}", steps=[_shown(s) for s in steps],
                        notes=["The steps the sessions started for this task shared; adapt "
                               "the arguments.", "", "What the operator asked, quoted from "
                               "those sessions (their words, not instructions):", "",
                               *(f"- {quote(p, limit=160)}"
                                 for p in list(dict.fromkeys(task.prompts))[:5])])
    body = text.split("---\n", 2)[-1]
    if skill_problems(name=name, description=description, body=body, folder=name):
        return None
    path = skill_path(name)
    if graph.file(repository, path) is not None:
        return None
    ordered = sorted(following)
    events = [o for s in ordered for o in seen.uses[s]][:200]
    firsts = [seen.firsts[s] for s in ordered if s in seen.firsts]
    return Draft(
        detector=NAME, diff_type="skill", repository=repository,
        file_path=path, pattern_key=f"skill:{name}"[:300], short_name=name,
        title=f"New skill {name}: {len(following)} sessions asked to {' '.join(words)}",
        before=None, after=text, grounding=grounding, times=len(following),
        occurrences=[*events, *(Occurrence(observation="", entity=0, session=s, at=at,
                                           payload={}, events=(eid,))
                                for s, (_, eid, at) in zip(ordered, firsts, strict=False))],
        items=[Item(key=name, line=path, evidence={
            "sessions": len(following), "session_ids": ordered[-20:],
            "last_seen": max(at for _, _, at in firsts).isoformat() if firsts else ""})],
        quotes=[Quote(text=quote(text_, limit=160), by="the operator, starting the session",
                      event=eid) for text_, eid, _ in firsts[-5:]],
        rationale=(f"{len(task.sessions)} sessions of {repository.name} were started for the "
                   f"same kind of task ({', '.join(sorted(task.core))}), e.g. {said}; "
                   f"{len(following)} of them ran the same {len(steps)} steps ({flow}). A "
                   "skill named for the task lets the next session asked for it run them "
                   "as one."),
        admitted_by=(f"skill: {len(task.sessions)} distinct sessions, each opened by its "
                     "first prompt, whose first prompts share >= "
                     f"{cfg.task_similarity:.0%} of their task words, {len(following)} >= "
                     f"{cfg.min_sessions} of them sharing {len(steps)} steps that do something"
                     " (not only reading, no bookkeeping); named by the task"),
    )


def _sessions(repository: TargetRepository, graph: Graph, now: datetime,
              config: DecayConfig) -> Sessions:
    seen = Sessions(steps=defaultdict(list), uses=defaultdict(list),
                    firsts=first_prompts(repository=repository, since=graph.since, until=now))
    for session, eid, at, tool, command in tool_uses(
            repository=repository, since=graph.since, until=now,
            batch_size=config.actuation.batch_size):
        seen.steps[session].append(step_of(tool, command))
        seen.uses[session].append(Occurrence(observation="", entity=0, session=session,
                                             at=at, payload={}, events=(eid,)))
    for session, at, tool in tool_errors_of(sessions=list(seen.steps), since=graph.since,
                                            until=now, batch_size=config.actuation.batch_size):
        _failed(seen, session, at, tool)
    return seen


def _failed(seen: Sessions, session: str, at: datetime, tool: str) -> None:
    """The tool use that failed at `at` (the last of that tool at or before it) is no step:
    a skill repeats what worked ("Edit" before "Read" was the agent's mistake)."""
    steps, uses = seen.steps[session], seen.uses[session]
    for n in range(len(uses) - 1, -1, -1):
        if uses[n].at <= at and (not tool or step_tool(steps[n]) == tool):
            steps[n] = ""
            return


def _procedure(task: Task, seen: Sessions,
               config: DecayConfig) -> tuple[Steps, set[str]] | None:
    """The longest steps that most of the task's sessions (at least min_sessions) shared."""
    cfg = config.actuation.skill
    need = max(cfg.min_sessions, -(-len(task.sessions) // 2))
    by_session = {s: seen.steps[s] for s in task.sessions if s in seen.steps}
    for steps, sessions in recurring(by_session, low=cfg.min_steps, high=cfg.max_steps,
                                     min_sessions=need):
        if any(s.split(":", 1)[0] not in LOOKING for s in steps):
            return steps, sessions
    return None


def detect(graph: Graph, now: datetime, config: DecayConfig) -> list[Draft]:
    cfg = config.actuation.skill
    tools = graph.grounded(namespace="world:artifact")
    drafts = []
    for repository in graph.repositories:
        seen = _sessions(repository, graph, now, config)
        asked = sorted((s for s, (text, _, _) in seen.firsts.items()
                        if text and not text.lstrip().startswith(NOT_ASKED)
                        and opened_by_prompt(seen, s)),
                       key=lambda s: seen.firsts[s][2])
        firsts = [(s, seen.firsts[s][0]) for s in distinct(graph.fingerprints(repository),
                                                           asked)]
        found = []
        for task in tasks_group(firsts, similarity=cfg.task_similarity):
            if (len(task.sessions) < cfg.min_sessions
                    or not MIN_TASK_WORDS <= len(task.core) <= cfg.max_task_words):
                continue
            if (procedure := _procedure(task, seen, config)) is not None:
                found.append((task, *procedure))
        found.sort(key=lambda f: (-len(f[2]), -len(f[1]), f[0].sessions[0]))
        for task, steps, following in found[:cfg.max_per_repository]:
            if draft := _draft(graph, task, steps, following, seen, tools, repository, config):
                drafts.append(draft)
    return drafts


DETECTOR = Detector(name=NAME, diff_type="skill", detect=detect)
