"""What a handler sees (an `ObservationView`) and what it returns (an `Extraction`).

A handler is a pure function of one observation: it names the entities the observation is
about (by namespace and name, or by key), the relations between them and the claims made
on them. Resolving names to entities, deduplicating, scoring, detecting conflicts, writing
and reinforcing are the job's generic steps (memory.services.retain).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from memory.retain.text import strip_accents

MAX_SLUG = 120
# Long names end in a short digest: shorter than an id (see `id_shaped`).
DIGEST_CHARS = 6
_NOT_SLUG = re.compile(r"[^a-z0-9._-]+")
# What correlation ids look like once slugged: uuids, ULIDs, runs of hex with a digit (commit
# and agent ids; not dates), Anthropic's prefixed ids (toolu_, req_, msg_), long mixed tokens.
_ID_TOKENS = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|(?:^|(?<=[-_.:]))(?:srvtoolu|toolu|req|msg|call|chatcmpl)_[0-9a-z]{6,}"
    r"|(?<![0-9a-z])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{8,}(?![0-9a-z])"
    r"|(?<![0-9a-z])(?=[0-9a-z]*[0-9])(?=[0-9a-z]*[a-z])[0-9a-z]{20,}(?![0-9a-z])"
)


@dataclass(frozen=True)
class ObservationView:
    """The fields of an Observation a handler may read."""

    id: str
    dedup_key: str
    source: str
    timestamp: datetime
    category: str
    target_namespace: str
    topic: str = ""
    actors: tuple[Mapping[str, str], ...] = ()
    sentiment: str = "neutral"
    sentiment_score: float = 0.0
    payload: Mapping[str, Any] = field(default_factory=dict)
    event_ids: tuple[str, ...] = ()

    def text(self, name: str, default: str = "") -> str:
        value = self.payload.get(name)
        return value if isinstance(value, str) else default


@dataclass(frozen=True)
class EntitySpec:
    """An entity the observation is about. `ref` names it inside the extraction.

    With a `key` (`namespace:slug`) it is that entity; otherwise it is found by name (or an
    alias) in `namespace`, or created there with `slug_of(name)`. `actor`: one of the
    observation's actors (schema_fit counts how many are already known). `principal`: what
    the observation is about; a new one takes the observation's sentiment as its valence.
    """

    ref: str
    namespace: str
    name: str
    key: str = ""
    aliases: tuple[str, ...] = ()
    role: str = ""
    actor: bool = False
    principal: bool = False
    # Other namespaces where the name may already be known (by alias), looked in, in order,
    # when it is not found in `namespace` (a memory's name of no known kind).
    also_in: tuple[str, ...] = ()

    @property
    def full_key(self) -> str:
        return self.key or f"{self.namespace}:{slug_of(self.name)}"


@dataclass(frozen=True)
class RelationSpec:
    source: str
    target: str
    type: str


@dataclass(frozen=True)
class FactSpec:
    """A claim on an entity; polarity +1 (affirmative) or -1 (negated)."""

    entity: str
    claim: str
    polarity: int
    scope: str = ""
    language: str = ""


@dataclass(frozen=True)
class Extraction:
    entities: tuple[EntitySpec, ...] = ()
    relations: tuple[RelationSpec, ...] = ()
    facts: tuple[FactSpec, ...] = ()

    def check(self) -> None:
        """A handler's bug, named: a relation or fact on an entity it did not declare."""
        refs = {e.ref for e in self.entities}
        if len(refs) != len(self.entities):
            raise ValueError("two entities of one extraction share a ref")
        for rel in self.relations:
            if rel.source not in refs or rel.target not in refs:
                raise ValueError(f"relation {rel} names an undeclared entity")
        for fact in self.facts:
            if fact.entity not in refs:
                raise ValueError(f"fact {fact.claim!r} is on an undeclared entity")
            if fact.polarity not in (1, -1):
                raise ValueError(f"fact {fact.claim!r} has polarity {fact.polarity}")

    def without_ids(self) -> Extraction:
        """The extraction less any entity keyed by a correlation id (and what hangs on it):
        the Retain Job's last guard, the analyzers name no such entity in the first place."""
        refused = {e.ref for e in self.entities if id_shaped(split_key(e.full_key)[1])}
        if not refused:
            return self
        return Extraction(
            entities=tuple(e for e in self.entities if e.ref not in refused),
            relations=tuple(r for r in self.relations
                            if r.source not in refused and r.target not in refused),
            facts=tuple(f for f in self.facts if f.entity not in refused),
        )


@lru_cache(maxsize=65536)
def slug_of(name: str) -> str:
    """A key-safe slug: lowercase ascii, digits, `.`, `_`, `-`; long names end in a hash."""
    flat = _NOT_SLUG.sub("-", strip_accents(name.casefold())).strip("-.")
    if len(flat) <= MAX_SLUG and flat:
        return flat
    digest = hashlib.sha256(name.encode()).hexdigest()[:DIGEST_CHARS]
    if not flat:
        return f"x-{digest}"
    return f"{flat[:MAX_SLUG - DIGEST_CHARS - 1].rstrip('-.')}-{digest}"


@lru_cache(maxsize=65536)
def id_shaped(slug: str) -> bool:
    """A slug that holds a correlation id (a session, subagent, tool use, request or message
    id): such a thing is no entity, whatever a handler says."""
    return bool(_ID_TOKENS.search(slug.casefold()))


def scope_widened(held: str, said: str) -> str:
    """The scope of a claim held as `held` and said again as `said`: the same where (the
    same project, or global) keeps it; a claim said in two projects holds everywhere."""
    if not held or not said or held.split(" (", 1)[0] == said.split(" (", 1)[0]:
        return held
    return "global"


def split_key(key: str) -> tuple[str, str]:
    """`world:person:anya` -> (`world:person`, `anya`)."""
    namespace, _, slug = key.rpartition(":")
    return namespace, slug


def actor_entity(actor: Mapping[str, str], *, ref: str, namespace: str) -> EntitySpec:
    """An actor of the observation as an entity: by its key when it has one, else by name
    in `namespace`."""
    name = actor.get("name") or ""
    key = actor.get("key") or ""
    if key and ":" in key:
        key_namespace, slug = split_key(key)
        return EntitySpec(ref=ref, namespace=key_namespace, name=name or slug, key=key,
                          role=actor.get("role", ""), actor=True)
    return EntitySpec(ref=ref, namespace=namespace, name=name or key,
                      role=actor.get("role", ""), actor=True)


def actors_by_role(view: ObservationView) -> dict[str, Mapping[str, str]]:
    """The observation's actors by role (the first one of each role)."""
    found: dict[str, Mapping[str, str]] = {}
    for actor in view.actors:
        found.setdefault(actor.get("role", ""), actor)
    return found
