"""`interaction` (agent:*:relationship): the agent's relationship with the other party is the
entity (internal working model); the speaker interacts with the counterpart. The agent
talking with itself in a subagent run (an episode of it) is no relationship. The speech
acts themselves stay on the observations (the interaction profile reads them there)."""

from __future__ import annotations

from insight.handlers.common import actor_specs, agent_of_namespace
from memory.retain.extraction import EntitySpec, Extraction, ObservationView, RelationSpec
from memory.retain.registry import handler_register


@handler_register("interaction", "agent:*:relationship")
def interaction(view: ObservationView) -> Extraction:
    agent = agent_of_namespace(view)
    # Observations of older analyzers name a subagent run `claude-code:<agentId>`.
    speaker, counterpart = (name.split(":", 1)[0] if name.startswith(f"{agent}:") else name
                            for name in (view.text("speaker"), view.text("counterpart")))
    if speaker == counterpart:  # the agent with itself, in a subagent run
        return Extraction(entities=tuple(
            spec for role, spec in actor_specs(view, default_namespace="agent").items()
            if role == "speaker"))
    other_role = "counterpart" if speaker == agent else "speaker"
    other = counterpart if other_role == "counterpart" else speaker
    actors = actor_specs(view, default_namespace="world:person")
    bond = EntitySpec(ref="relationship", namespace=view.target_namespace, name=other or "unknown",
                      principal=True, role="relationship")
    relations = []
    if "speaker" in actors and "counterpart" in actors:
        relations.append(RelationSpec("speaker", "counterpart", "interacts_with"))
    if other_role in actors:
        relations.append(RelationSpec("relationship", other_role, "relates_to"))
    return Extraction(entities=(bond, *actors.values()), relations=tuple(relations))
