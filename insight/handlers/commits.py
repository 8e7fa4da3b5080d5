"""`commit` (world:project): the author (a person; the email becomes an alias) works on the
repository (a project). Which files are hot is a query over the observations."""

from __future__ import annotations

import dataclasses

from insight.handlers.common import actor_specs
from memory.retain.extraction import Extraction, ObservationView, RelationSpec, actors_by_role
from memory.retain.registry import handler_register


@handler_register("commit", "world:project")
def commit(view: ObservationView) -> Extraction:
    actors = actor_specs(view, default_namespace="world:person")
    email = actors_by_role(view).get("author", {}).get("email", "")
    if "author" in actors and email:
        actors["author"] = dataclasses.replace(actors["author"], aliases=(email,))
    if "repository" in actors:
        actors["repository"] = dataclasses.replace(actors["repository"], principal=True)
    relations = ([RelationSpec("author", "repository", "works_on")]
                 if {"author", "repository"} <= set(actors) else [])
    return Extraction(entities=tuple(actors.values()), relations=tuple(relations))
