"""Where each analyzer's observations belong: nodes of the taxonomy in config/decay.yaml."""

from __future__ import annotations


def instruction(agent: str) -> str:
    return f"agent:{agent}:instruction"


def correction(agent: str) -> str:
    # What the operator corrects is how the agent goes wrong.
    return f"agent:{agent}:failure-mode"


def root_cause(agent: str) -> str:
    return f"agent:{agent}:rc"


def permission(agent: str) -> str:
    # What the agent is allowed to run: the procedures it may use without asking.
    return f"agent:{agent}:skill"


def relationship(agent: str) -> str:
    return f"agent:{agent}:relationship"


PREFERENCE = "self:operator:preference"
PERSON = "world:person"
PROJECT = "world:project"
ARTIFACT = "world:artifact"
