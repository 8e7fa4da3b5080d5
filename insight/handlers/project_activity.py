"""`project_activity` (world:project, world:artifact): the project the agent works on, its
branches, the files it touches and the libraries it imports or installs. A file is named
with its project ("billing-api/src/app.py"): the same path in two projects is two files."""

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


def _activity(view: ObservationView) -> Extraction:
    kind = view.text("kind")
    actors = actor_specs(view, default_namespace="world:artifact")
    project = actors.get("project")
    entities: list[EntitySpec] = [project] if project else []
    relations: list[RelationSpec] = []
    if kind == "file" and project:
        path = f"{view.text('project')}/{view.text('name')}"
        entities.append(EntitySpec(ref="file", namespace="world:artifact", name=path,
                                   principal=True, role="file", actor=True))
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
