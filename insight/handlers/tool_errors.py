"""`tool_error` (agent:*:rc): the root cause is the entity, keyed by the error's normalized
signature (one root cause across sessions), named by its tool and message."""

from __future__ import annotations

from insight.handlers.common import actor_specs
from memory.retain.extraction import EntitySpec, Extraction, ObservationView, RelationSpec
from memory.retain.registry import handler_register


@handler_register("tool_error", "agent:*:rc")
def tool_error(view: ObservationView) -> Extraction:
    tool = view.text("tool", "unknown")
    name = f"{tool}: {view.text('normalized') or view.topic}"[:300]
    actors = actor_specs(view, default_namespace="world:artifact")
    cause = EntitySpec(ref="rc", namespace=view.target_namespace, name=name,
                       key=f"{view.target_namespace}:{view.text('signature')}", principal=True,
                       role="root_cause")
    relations = []
    if "tool" in actors:
        relations.append(RelationSpec("rc", "tool", "relates_to"))
        if "agent" in actors:
            relations.append(RelationSpec("agent", "tool", "uses"))
    return Extraction(entities=(cause, *actors.values()), relations=tuple(relations))
