"""The per-category schemas of `payload_typed`, and their registry.

memory defines the built-in categories; anything else (an app, a plugin, an LLM-backed
analyzer) adds its own with `observation_schema_register`. A schema names the fields a
payload must or may have; fields it does not name are allowed (analyzers add detail).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

POLARITIES = ("positive", "negative")
ACTS = ("assertive", "directive", "commissive", "expressive", "declarative")
DECISIONS = ("requested", "granted", "denied", "blocked", "mode")
COMMIT_KINDS = ("feat", "fix", "refactor", "docs", "test", "chore", "perf", "style", "build",
                "ci", "revert", "merge", "other")

_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "a boolean",
               list: "a list", dict: "an object"}


@dataclass(frozen=True)
class PayloadField:
    kind: type
    required: bool = True
    choices: tuple[str, ...] = ()
    max_length: int = 2000
    nullable: bool = False

    def error(self, value: Any) -> str | None:
        if value is None:
            return None if self.nullable else "May not be null."
        if not _is_kind(value, self.kind):
            return f"Must be {_TYPE_NAMES[self.kind]}."
        if self.choices and value not in self.choices:
            return f"Must be one of: {', '.join(self.choices)}."
        if isinstance(value, str) and (len(value) > self.max_length or
                                       (self.required and not value.strip())):
            return f"Must be 1 to {self.max_length} characters."
        return None


def _is_kind(value: Any, kind: type) -> bool:
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is dict:
        return isinstance(value, Mapping)
    return isinstance(value, kind)


Schema = Mapping[str, PayloadField]


def _text(required: bool = True, max_length: int = 2000) -> PayloadField:
    return PayloadField(str, required=required, max_length=max_length)


def _choice(choices: tuple[str, ...], required: bool = True) -> PayloadField:
    return PayloadField(str, required=required, choices=choices)


_CLAIM: dict[str, PayloadField] = {
    "claim": _text(max_length=500), "subject": _text(max_length=500),
    "polarity": _choice(POLARITIES), "modality": _text(False, 64),
    "text": _text(False), "language": _text(False, 16), "alternative": _text(False, 500),
}

_registry: dict[str, Schema] = {
    "instruction": _CLAIM,
    "preference": _CLAIM,
    "fact": {"subject": _text(max_length=500), "text": _text(),
             "polarity": _choice(POLARITIES, required=False)},
    "correction": {"kind": _text(max_length=64), "text": _text(False)},
    "tool_error": {"tool": _text(max_length=200), "signature": _text(max_length=64),
                   "normalized": _text(False), "message": _text(False),
                   "exit_code": PayloadField(int, required=False, nullable=True)},
    "permission_request": {"tool": _text(max_length=200), "pattern": _text(max_length=500),
                           "decision": _choice(DECISIONS)},
    "interaction": {"act": _choice(ACTS), "speaker": _text(max_length=200),
                    "counterpart": _text(max_length=200), "language": _text(False, 16),
                    "acts": PayloadField(dict, required=False),
                    # A tally of a pair's messages in a session (memory.selectors.observations).
                    "messages": PayloadField(int, required=False),
                    "act_counts": PayloadField(dict, required=False),
                    "sentiments": PayloadField(dict, required=False),
                    "languages": PayloadField(dict, required=False)},
    "commit": {"sha": _text(max_length=64), "repo": _text(max_length=200),
               "kind": _choice(COMMIT_KINDS), "author": _text(False, 200),
               "files": PayloadField(list, required=False)},
    "project_activity": {"project": _text(max_length=500), "kind": _text(max_length=64),
                         "name": _text(max_length=2000), "action": _text(max_length=64)},
}


def observation_schema_register(category: str, schema: Schema) -> None:
    """Add (or replace) the schema of a category's payload_typed."""
    _registry[category] = dict(schema)


def observation_categories() -> list[str]:
    return sorted(_registry)


def payload_errors(category: str, payload: Any) -> dict[str, str]:
    """What is wrong with `payload` for `category`, by field; empty when it is valid."""
    schema = _registry.get(category)
    if schema is None:
        return {"category": f"Unknown category; one of: {', '.join(observation_categories())}."}
    if not isinstance(payload, Mapping):
        return {"payload_typed": "Must be an object."}
    errors = {}
    for name, spec in schema.items():
        if name not in payload:
            if spec.required:
                errors[name] = "This field is required."
        elif problem := spec.error(payload[name]):
            errors[name] = problem
    return errors
