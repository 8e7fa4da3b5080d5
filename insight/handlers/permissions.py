"""`permission_request` (agent:*:skill): the permission rule (`Bash(npm test:*)`) is the
entity; the agent uses it, it concerns a tool."""

from __future__ import annotations

from insight.handlers.common import actor_specs
from memory.retain.extraction import EntitySpec, Extraction, ObservationView, RelationSpec
from memory.retain.registry import handler_register

NO_TOOL = {"", "*", "unknown"}


@handler_register("permission_request", "agent:*:skill")
def permission_request(view: ObservationView) -> Extraction:
    actors = actor_specs(view, default_namespace="world:person")
    rule = EntitySpec(ref="rule", namespace=view.target_namespace,
                      name=view.text("pattern", view.topic), principal=True, role="permission")
    entities = [rule, *actors.values()]
    relations = [RelationSpec("requester", "rule", "uses")] if "requester" in actors else []
    tool = view.text("tool")
    if tool not in NO_TOOL:
        entities.append(EntitySpec(ref="tool", namespace="world:artifact", name=tool,
                                   role="tool"))
        relations.append(RelationSpec("rule", "tool", "relates_to"))
    return Extraction(entities=tuple(entities), relations=tuple(relations))
