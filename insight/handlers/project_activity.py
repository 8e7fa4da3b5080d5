"""`project_activity` (world:project, world:artifact): the project the agent works on, its
branches, the files it touches and the libraries it imports or installs. A file is named
with its project ("billing-api/src/app.py"): the same path in two projects is two files; a
file outside the project keeps its own path ("~/.claude/CLAUDE.md") and is not part of it."""

from __future__ import annotations

import dataclasses

from insight.handlers.common import actor_specs
from memory.retain.extraction import EntitySpec, Extraction, ObservationView, RelationSpec
from memory.retain.registry import handler_register


def _agent(view: ObservationView) -> EntitySpec | None:
    name = view.text("agent").split(":", 1)[0]
    if not name:
        return None
    return EntitySpec(ref="agent", namespace="agent", name=name, key=f"agent:{name}",
                      role="agent")


def _file(view: ObservationView) -> str:
    """The file's name in its project; older observations named it relative to the cwd."""
    name = view.text("name")
    if view.text("inside"):
        return name
    return f"{view.text('project')}/{name}"


def _activity(view: ObservationView) -> Extraction:
    kind = view.text("kind")
    actors = actor_specs(view, default_namespace="world:artifact")
    project = actors.get("project")
    entities: list[EntitySpec] = [project] if project else []
    relations: list[RelationSpec] = []
    if kind == "file" and project:
        entities.append(EntitySpec(ref="file", namespace="world:artifact", name=_file(view),
                                   principal=True, role="file", actor=True))
        if view.text("inside", "True") == "True":
            relations.append(RelationSpec("file", "project", "part_of"))
    elif kind == "library" and "library" in actors:
        entities.append(dataclasses.replace(actors["library"], principal=True))
        if project:
            relations.append(RelationSpec("project", "library", "uses"))
    elif project:
        entities[0] = dataclasses.replace(project, principal=True)
    agent = _agent(view)
    if agent and project and kind == "project":
        entities.append(agent)
        relations.append(RelationSpec("agent", "project", "works_on"))
    return Extraction(entities=tuple(entities), relations=tuple(relations))


handler_register("project_activity", "world:project")(_activity)
handler_register("project_activity", "world:artifact")(_activity)
