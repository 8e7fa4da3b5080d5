"""`correction` (agent:*:failure-mode): how the agent went wrong (the kind of correction:
negation, undo, stop, reproach, still failing, interrupt, rejection) is the entity."""

from __future__ import annotations

from insight.handlers.common import actor_specs
from memory.retain.extraction import EntitySpec, Extraction, ObservationView, RelationSpec
from memory.retain.registry import handler_register


@handler_register("correction", "agent:*:failure-mode")
def correction(view: ObservationView) -> Extraction:
    kind = view.text("kind", "correction")
    actors = actor_specs(view, default_namespace="world:person")
    mode = EntitySpec(ref="mode", namespace=view.target_namespace, name=kind.replace("_", " "),
                      principal=True, role="failure_mode")
    relations = []
    if "corrected" in actors:
        relations.append(RelationSpec("mode", "corrected", "relates_to"))
        if "corrector" in actors:
            relations.append(RelationSpec("corrector", "corrected", "corrected"))
    return Extraction(entities=(mode, *actors.values()), relations=tuple(relations))
