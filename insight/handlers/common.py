"""What the handlers share: the agent and the operator as entities, read from the
observation's actors (their keys name taxonomy nodes: self:operator, agent:claude-code)."""

from __future__ import annotations

from memory.retain.extraction import EntitySpec, ObservationView, actor_entity, actors_by_role

OPERATOR_KEY = "self:operator"


def agent_of_namespace(view: ObservationView) -> str:
    """`claude-code` for a target namespace `agent:claude-code:...`."""
    parts = view.target_namespace.split(":")
    return parts[1] if len(parts) > 1 and parts[0] == "agent" else "claude-code"


def actor_specs(view: ObservationView, *, default_namespace: str) -> dict[str, EntitySpec]:
    """The observation's actors as entities, by role (`ref` is the role)."""
    return {role: actor_entity(actor, ref=role or "actor", namespace=default_namespace)
            for role, actor in actors_by_role(view).items()}


def operator(ref: str = "operator", role: str = "operator") -> EntitySpec:
    return EntitySpec(ref=ref, namespace="self", name="operator", key=OPERATOR_KEY, role=role,
                      actor=True)


def agent(view: ObservationView, ref: str = "agent", role: str = "agent") -> EntitySpec:
    name = agent_of_namespace(view)
    return EntitySpec(ref=ref, namespace="agent", name=name, key=f"agent:{name}", role=role,
                      actor=True)
